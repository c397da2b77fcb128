// agentvcr's A2A end to end, with the official @a2a-js/sdk 1.3.0 (pinned by package-lock.json)
// as an independent client and server. Real processes, real sockets, real files:
//
//   1. record: SDK client -> `agentvcr record` -> SDK server (sdk-server.mjs, legacy v0.3 wire),
//      then the archive is read back with the sqlite3 CLI;
//   2. replay: a fresh SDK client -> `agentvcr replay` of that archive: the same answers;
//   3. mock:   SDK client -> `agentvcr mock a2a --profile magisterium`;
//   4. v1.0:   the SDK client on its native A2A v1.0 wire -> `agentvcr mock a2a --profile
//      standard`, directly and through `agentvcr record`, then `agentvcr replay` of that archive.
//
//   AGENTVCR=build/dev/cli/agentvcr node --test tests/e2e/a2a/a2a.test.mjs
//
// Environment: AGENTVCR (the binary; default `agentvcr` on PATH), A2A_E2E_DELAY_MS (the SDK
// server's pause between two stream events; default 300), A2A_E2E_KEEP=1 (keep the temporary
// directory, with every process's log, for inspection).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// Fail loudly, never skip, when the SDK is not installed: scripts/bootstrap runs `npm ci` here.
const sdkPackage = path.join(here, 'node_modules', '@a2a-js', 'sdk', 'package.json');
if (!existsSync(sdkPackage)) {
  throw new Error(`@a2a-js/sdk is not installed in ${here}/node_modules: ` +
                  `run scripts/bootstrap (it runs \`npm ci\` in tests/e2e/a2a)`);
}
const sdkVersion = JSON.parse(readFileSync(sdkPackage, 'utf8')).version;
if (sdkVersion !== '1.3.0') {
  throw new Error(`@a2a-js/sdk ${sdkVersion} is installed, the tests pin 1.3.0: run scripts/bootstrap`);
}
const { Role, TaskState } = await import('@a2a-js/sdk');
const {
  ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory,
  RestTransportFactory,
} = await import('@a2a-js/sdk/client');

const AGENTVCR = process.env.AGENTVCR || 'agentvcr';
const DELAY_MS = Number(process.env.A2A_E2E_DELAY_MS ?? 300);
// The SDK server's stream: task, working, three artifact chunks, completed; DELAY_MS apart.
const STREAM_KINDS = ['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate',
                      'statusUpdate'];
const WIRE_KINDS = ['task', 'status-update', 'artifact-update', 'artifact-update', 'artifact-update',
                    'status-update'];
const STREAM_SPAN_MS = (STREAM_KINDS.length - 1) * DELAY_MS;
const SECRET = 'e2e-a2a-secret-5b1f09';
const SESSION = 'a2a-e2e';
const CARD_PATH = '/.well-known/agent.json';
const V1_CARD_PATH = '/.well-known/agent-card.json';
const RPC_PATH = '/api/v1/a2a';
const STEP = { timeout: 30_000 };
const HOOK = { timeout: 60_000 };
const COMPAT = { legacyCompat: { enabled: true } };

const work = mkdtempSync(path.join(tmpdir(), 'agentvcr-a2a-'));
const archive = path.join(work, 'a2a.sqlite');
let failures = 0;

// ---------------------------------------------------------------------------------------------
// Processes

const running = new Set();

// Starts a process whose stdout and stderr go to <work>/<name>.log and waits until it has
// written its listening URL to `readyFile`. Rejects with the log when it exits or times out.
async function startProcess(name, command, args, { env = {}, readyFile }) {
  const logPath = path.join(work, `${name}.log`);
  writeFileSync(logPath, `$ ${command} ${args.join(' ')}\n`);
  const log = openSync(logPath, 'a');
  const child = spawn(command, args, {
    env: { ...process.env, ...env }, stdio: ['ignore', log, log],
  });
  closeSync(log);
  const proc = { name, child, logPath, exited: null };
  proc.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', (error) => resolve({ code: -1, signal: null, error }));
  });
  running.add(proc);
  const deadline = performance.now() + 30_000;
  let exit = null;
  proc.exited.then((e) => { exit = e; });
  for (;;) {
    if (existsSync(readyFile)) {
      const url = readFileSync(readyFile, 'utf8').trim();
      if (url) {
        proc.url = url;
        return proc;
      }
    }
    if (exit || performance.now() > deadline) {
      await stopProcess(proc);
      throw new Error(`${name} ${exit ? `exited (${JSON.stringify(exit)})` : 'never became ready'}` +
                      `:\n${readFileSync(logPath, 'utf8')}`);
    }
    await sleep(25);
  }
}

// SIGTERM, then waits (SIGKILL after 20 s). Returns the exit status.
async function stopProcess(proc) {
  if (!proc || !running.has(proc)) return proc?.exit;
  if (proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGTERM');
  }
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 20_000);
  proc.exit = await proc.exited;
  clearTimeout(timer);
  running.delete(proc);
  return proc.exit;
}

const logOf = (proc) => (proc ? readFileSync(proc.logPath, 'utf8') : '');

function helpOf(...args) {
  const result = spawnSync(AGENTVCR, [...args, '--help'], { encoding: 'utf8', timeout: 10_000 });
  return result.status === 0 ? result.stdout : '';
}

after(async () => {
  await Promise.all([...running].map(stopProcess));
  if (process.env.A2A_E2E_KEEP || failures > 0) {
    console.log(`agentvcr a2a e2e: logs and archive kept in ${work}`);
  } else {
    rmSync(work, { recursive: true, force: true });
  }
  // A stuck socket must not keep the test process alive once every test has reported.
  setTimeout(() => process.exit(), 10_000).unref();
});

// Count failures, so that the temporary directory is kept for a post-mortem.
function hook(fn) {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (error) {
      ++failures;
      throw error;
    }
  };
}

function step(name, fn) {
  test(name, STEP, hook(fn));
}

// ---------------------------------------------------------------------------------------------
// SDK client

// A fetch that logs every request and (except event streams) its answer.
function loggingFetch(log) {
  return async (url, init = {}) => {
    const headers = Object.fromEntries(
      Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    const entry = { method: init.method ?? 'GET', url: String(url), headers,
                    body: typeof init.body === 'string' ? init.body : undefined };
    entry.rpc = entry.body ? JSON.parse(entry.body) : undefined;
    log.push(entry);
    const response = await fetch(url, init);
    entry.status = response.status;
    entry.contentType = response.headers.get('content-type') ?? '';
    if (!entry.contentType.includes('text/event-stream')) {
      entry.responseText = await response.clone().text();
      try {
        entry.response = JSON.parse(entry.responseText);
      } catch {
        entry.response = undefined;
      }
    }
    return response;
  };
}

function clientFactory(log) {
  return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    cardResolver: new DefaultAgentCardResolver({ ...COMPAT, fetchImpl: loggingFetch(log) }),
    transports: [new JsonRpcTransportFactory({ ...COMPAT, fetchImpl: loggingFetch(log) })],
  }));
}

// The same, preferring the HTTP+JSON binding to JSON-RPC.
function restClientFactory(log) {
  return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: loggingFetch(log) }),
    transports: [new RestTransportFactory({ fetchImpl: loggingFetch(log) })],
    preferredTransports: ['HTTP+JSON'],
  }));
}

const auth = (token = SECRET) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });
const noAuth = { serviceParameters: {} };

function message(messageId, text, { contextId = '', skillId = 'catholic_qa' } = {}) {
  return {
    tenant: '', configuration: undefined, metadata: undefined,
    message: {
      messageId, contextId, taskId: '', role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, filename: '', mediaType: '',
                metadata: undefined }],
      metadata: { skillId }, extensions: [], referenceTaskIds: [],
    },
  };
}
const taskQuery = (id) => ({ tenant: '', id, historyLength: undefined });
const cancelQuery = (id) => ({ tenant: '', id, metadata: undefined });

const textOf = (parts) => parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value);
const dataOf = (parts) => parts.filter((p) => p.content?.$case === 'data').map((p) => p.content.value);

// The JSON-RPC error a call rejects with, as the tests compare it.
async function rpcError(promise) {
  const error = await promise.then(
    (value) => assert.fail(`expected a JSON-RPC error, got ${JSON.stringify(value)}`),
    (e) => e);
  assert.equal(typeof error.envelopeCode, 'number',
               `not a JSON-RPC error: ${error?.stack ?? error}`);
  return { code: error.envelopeCode, message: error.message, data: error.data };
}

// Runs message/stream; each event with its arrival time (ms since the call).
async function collectStream(client, params, options) {
  const start = performance.now();
  const events = [];
  for await (const event of client.sendMessageStream(params, options)) {
    events.push({ at: performance.now() - start, kind: event.payload?.$case,
                  value: event.payload?.value });
  }
  return events;
}

function assertStreamShape(events, label) {
  assert.deepEqual(events.map((e) => e.kind), STREAM_KINDS, `${label}: event order`);
  const [submitted, working, ...rest] = events.map((e) => e.value);
  const chunks = rest.slice(0, 3);
  const last = rest[3];
  assert.equal(submitted.status.state, TaskState.TASK_STATE_SUBMITTED);
  assert.equal(working.status.state, TaskState.TASK_STATE_WORKING);
  assert.deepEqual(chunks.map((c) => textOf(c.artifact.parts)[0]),
                   [1, 2, 3].map((n) => `catholic_qa: Stream the answer [part ${n}]`));
  assert.deepEqual(chunks.map((c) => [c.append, c.lastChunk]),
                   [[false, false], [true, false], [true, true]]);
  assert.equal(last.status.state, TaskState.TASK_STATE_COMPLETED);
  for (const value of [working, ...chunks, last]) {
    assert.equal(value.taskId, submitted.id);
    assert.equal(value.contextId, submitted.contextId);
  }
}

const span = (events) => events.at(-1).at - events[0].at;

function sqlJson(sql) {
  const out = execFileSync('sqlite3', ['-json', archive, sql], { encoding: 'utf8' }).trim();
  return out ? JSON.parse(out) : [];
}

// Every exchange of the archive as `agentvcr export --format jsonl` writes it.
function exportedExchanges() {
  const out = execFileSync(AGENTVCR, ['export', '--db', archive, '--format', 'jsonl'],
                           { encoding: 'utf8' });
  return out.split('\n').filter((line) => line).map((line) => JSON.parse(line));
}

// The bearer secret the client sent is in no file of the archive (raw bytes, WAL included).
function assertSecretNotOnDisk() {
  for (const file of [archive, `${archive}-wal`, `${archive}-shm`, `${archive}-journal`]) {
    if (existsSync(file)) {
      assert.equal(readFileSync(file).indexOf(SECRET), -1, `the secret is in ${file}`);
    }
  }
}

function tableExists(name) {
  return sqlJson(`SELECT name FROM sqlite_master WHERE type='table' AND name='${name}'`).length > 0;
}

function requireTable(name) {
  assert.ok(tableExists(name),
            `the archive has no ${name} table (the recorder's A2A decoding is not there yet)`);
}

// ---------------------------------------------------------------------------------------------
// Topology 1: SDK client -> agentvcr record -> SDK server

// What the live run saw, for the replay to reproduce.
const recorded = { log: [] };

describe('record: SDK client -> agentvcr record -> SDK server', () => {
  let server;
  let recorder;
  let client;

  before(hook(async () => {
    const recordReady = path.join(work, 'record.url');
    server = await startProcess('sdk-server', process.execPath, [path.join(here, 'sdk-server.mjs')], {
      readyFile: path.join(work, 'sdk-server.url'),
      // The card names the server's own address: the recorder points it at itself.
      env: { PORT: '0', READY_FILE: path.join(work, 'sdk-server.url'),
             STREAM_DELAY_MS: String(DELAY_MS) },
    });
    recorder = await startProcess('record', AGENTVCR, [
      'record', '--upstream', server.url, '--listen', '127.0.0.1:0', '--db', archive,
      '--ready-file', recordReady, '--no-probe', '--session', SESSION,
    ], { readyFile: recordReady });
    client = await clientFactory(recorded.log).createFromUrl(recorder.url, CARD_PATH);
  }), HOOK);

  after(async () => {
    await stopProcess(recorder);
    await stopProcess(server);
  }, HOOK);

  step('the card, fetched through the proxy, sends the client to the proxy on the v0.3 wire',
       () => {
    const card = recorded.log[0];
    assert.equal(card.method, 'GET');
    assert.equal(card.url, `${recorder.url}${CARD_PATH}`);
    assert.equal(card.status, 200);
    assert.equal(card.response.protocolVersion, '0.3.0');
    assert.equal(card.response.url, `${recorder.url}${RPC_PATH}`);
    assert.equal(card.response.capabilities.streaming, true);
    recorded.cardText = card.responseText;
    recorded.serverUrl = server.url;
    assert.equal(client.protocolVersion, '0.3');
  });

  step('message/send: a completed task with text and data artifacts', async () => {
    const task = await client.sendMessage(message('m-1', 'What is grace?'), auth());
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.ok(task.id && task.contextId);
    assert.deepEqual(textOf(task.artifacts[0].parts), ['catholic_qa: What is grace?']);
    assert.deepEqual(dataOf(task.artifacts[0].parts),
                     [{ citations: [{ title: 'Catechism', ref: 'CCC 1996' }] }]);
    assert.equal(task.history.length, 2);
    const rpc = recorded.log.at(-1);
    assert.equal(rpc.url, `${recorder.url}${RPC_PATH}`, 'the RPC went through the proxy');
    assert.equal(rpc.headers['a2a-version'], '0.3');
    assert.equal(rpc.rpc.method, 'message/send');
    assert.equal(rpc.headers.authorization, `Bearer ${SECRET}`);
    recorded.task = task;
  });

  step('tasks/get: the same task', async () => {
    const task = await client.getTask(taskQuery(recorded.task.id), auth());
    assert.equal(task.id, recorded.task.id);
    assert.equal(task.contextId, recorded.task.contextId);
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(task.artifacts, recorded.task.artifacts);
    recorded.got = task;
  });

  step('tasks/cancel of a terminal task: -32002 from a standard server', async () => {
    const error = await rpcError(client.cancelTask(cancelQuery(recorded.task.id), auth()));
    assert.equal(error.code, -32002);
    assert.match(error.message, /Task not cancelable/);
    recorded.cancelError = error;
  });

  step('message/send continuing the contextId: a second task in the same context', async () => {
    const task = await client.sendMessage(
      message('m-2', 'And sanctifying grace?', { contextId: recorded.task.contextId }), auth());
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(task.contextId, recorded.task.contextId);
    assert.notEqual(task.id, recorded.task.id);
    assert.deepEqual(textOf(task.artifacts[0].parts), ['catholic_qa: And sanctifying grace?']);
    recorded.followUp = task;
  });

  step('message/send of the failing input: a failed task', async () => {
    const task = await client.sendMessage(message('m-3', 'please fail now'), auth());
    assert.equal(task.status.state, TaskState.TASK_STATE_FAILED);
    assert.deepEqual(textOf(task.status.message.parts), ['catholic_qa failed: asked to fail']);
    assert.notEqual(task.contextId, recorded.task.contextId);
    recorded.failed = task;
  });

  step('message/stream: events in order, relayed one by one (the proxy does not buffer)',
       async () => {
    const events = await collectStream(client, message('m-4', 'Stream the answer'), auth());
    assertStreamShape(events, 'through agentvcr record');
    const rpc = recorded.log.at(-1);
    assert.equal(rpc.rpc.method, 'message/stream');
    assert.match(rpc.contentType, /^text\/event-stream/);
    // The upstream spends STREAM_SPAN_MS between its first and last event. Had the proxy held
    // the body back, every event would reach the client together at the end.
    assert.ok(span(events) >= 0.6 * STREAM_SPAN_MS,
              `events reached the client together: ${events.map((e) => e.at.toFixed(0))} ms`);
    assert.ok(events[0].at < events.at(-1).at - 0.6 * STREAM_SPAN_MS,
              'the first event arrived only when the upstream finished');
    for (let i = 1; i < events.length - 1; ++i) {
      assert.ok(events.at(-1).at - events[i].at >= 0.4 * DELAY_MS * (events.length - 1 - i),
                `event ${i} arrived late: ${events.map((e) => e.at.toFixed(0))} ms`);
    }
    recorded.stream = events;
  });

  step('SIGTERM drains the archive and stops the recorder cleanly', async () => {
    // While the recorder runs, what it wrote so far sits in the WAL.
    assertSecretNotOnDisk();
    const exit = await stopProcess(recorder);
    assert.deepEqual(exit, { code: 0, signal: null }, logOf(recorder));
    assert.ok(existsSync(archive));
  });
});

// ---------------------------------------------------------------------------------------------
// The archive of topology 1

describe('archive: what agentvcr record wrote', () => {
  // Card GET, then six RPCs, in the client's order.
  const RPC_METHODS = ['message/send', 'tasks/get', 'tasks/cancel', 'message/send',
                       'message/send', 'message/stream'];

  // The recording session (a replay may add its own sessions to the archive later).
  const RECORDED = `(SELECT id FROM sessions WHERE name = '${SESSION}')`;
  // Bodies come through `agentvcr export`: the archive keeps large ones zstd-compressed.
  const exchanges = () => {
    const rows = sqlJson(
      `SELECT id, seq, method, target, status, protocol, route, request_headers
       FROM exchanges WHERE session_id = ${RECORDED} ORDER BY seq`);
    const bodies = new Map(exportedExchanges().map((line) => [line.id, line.response_body]));
    return rows.map((row) => ({ ...row, response_body: bodies.get(row.id) }));
  };

  before(hook(() => assert.ok(existsSync(archive), 'topology 1 wrote no archive')));

  step('every request was relayed and recorded, in order', () => {
    const rows = exchanges();
    assert.deepEqual(rows.map((r) => [r.method, r.target, r.status]), [
      ['GET', CARD_PATH, 200],
      ...RPC_METHODS.map(() => ['POST', RPC_PATH, 200]),
    ]);
    const stream = rows.at(-1).response_body;
    const frames = stream.split(/\r?\n\r?\n/).filter((f) => f.trim());
    assert.deepEqual(frames.map((f) => JSON.parse(f.replace(/^data: ?/m, '')).result.kind), WIRE_KINDS);
    assert.equal(JSON.parse(frames.at(-1).replace(/^data: ?/m, '')).result.final, true);
  });

  step('the bearer secret never reaches the disk; Authorization is stored redacted', () => {
    assertSecretNotOnDisk();
    const rpcs = exchanges().filter((r) => r.method === 'POST');
    assert.equal(rpcs.length, RPC_METHODS.length);
    for (const row of rpcs) {
      // Stored as a JSON array of [name, value] pairs, in the order they arrived.
      const authorization = JSON.parse(row.request_headers)
        .filter(([name]) => name.toLowerCase() === 'authorization').map(([, value]) => value);
      assert.equal(authorization.length, 1, `headers: ${row.request_headers}`);
      assert.match(authorization[0], /^REDACTED-[0-9a-f]{16}$/);
    }
  });

  step('the card is kept as the agent wrote it, with a note of what the client got instead', () => {
    const [card] = sqlJson(`SELECT id, card_rewrite FROM exchanges
                            WHERE session_id = ${RECORDED} ORDER BY seq LIMIT 1`);
    const kept = JSON.parse(exportedExchanges().find((line) => line.id === card.id).response_body);
    assert.equal(kept.url, `${recorded.serverUrl}${RPC_PATH}`);
    const note = JSON.parse(card.card_rewrite);
    assert.deepEqual(note.urls[0], { from: kept.url, to: JSON.parse(recorded.cardText).url });
  });

  step('exchanges are tagged A2A: route a2a.agent_card for the card, a2a.jsonrpc for RPCs', () => {
    assert.deepEqual(exchanges().map((r) => [r.protocol, r.route]), [
      ['a2a', 'a2a.agent_card'],
      ...RPC_METHODS.map(() => ['a2a', 'a2a.jsonrpc']),
    ]);
  });

  const calls = () => sqlJson(
    `SELECT c.*, e.seq FROM a2a_calls c JOIN exchanges e ON e.id = c.exchange_id
     WHERE e.session_id = ${RECORDED} ORDER BY e.seq, c.position`);

  step('a2a_calls: one decoded row per RPC', () => {
    requireTable('a2a_calls');
    const rows = calls();
    const { task, followUp, failed } = recorded;
    const stream = recorded.stream?.[0]?.value;
    assert.ok(task && followUp && failed && stream, 'topology 1 did not complete');
    const view = rows.map((r) => ({
      wire_version: r.wire_version, method: r.method, rpc_id: r.rpc_id, task_id: r.task_id,
      context_id: r.context_id, task_state: r.task_state, error_code: r.error_code,
    }));
    const row = (method, rpcId, taskId, contextId, state, errorCode = null) => ({
      wire_version: '0.3', method, rpc_id: String(rpcId), task_id: taskId,
      context_id: contextId, task_state: state, error_code: errorCode,
    });
    // The cancel's error answer names no context: the row may leave it empty, or take it from
    // the task's earlier calls.
    const cancelContext = view[2]?.context_id ?? null;
    assert.ok([null, task.contextId].includes(cancelContext), `cancel context ${cancelContext}`);
    // The stream's row holds the state of its last event.
    assert.deepEqual(view, [
      row('message/send', 1, task.id, task.contextId, 'completed'),
      row('tasks/get', 2, task.id, task.contextId, 'completed'),
      row('tasks/cancel', 3, task.id, cancelContext, null, -32002),
      row('message/send', 4, followUp.id, task.contextId, 'completed'),
      row('message/send', 5, failed.id, failed.contextId, 'failed'),
      row('message/stream', 6, stream.id, stream.contextId, 'completed'),
    ]);
  });

  step('a2a_calls: skill, message id, result kind, artifacts, history and the error', () => {
    requireTable('a2a_calls');
    const [send, get, cancel, followUp, failed, stream] = calls();
    assert.equal(send.skill_id, 'catholic_qa');
    assert.equal(send.message_id, 'm-1');
    assert.equal(send.result_kind, 'task');
    const artifacts = JSON.parse(send.artifacts);
    assert.equal(artifacts[0].artifactId, 'a-0');
    assert.deepEqual(artifacts[0].parts[0], { kind: 'text', text: 'catholic_qa: What is grace?' });
    assert.deepEqual(artifacts[0].parts[1].data,
                     { citations: [{ title: 'Catechism', ref: 'CCC 1996' }] });
    assert.deepEqual(JSON.parse(send.history).map((m) => m.role), ['user', 'agent']);
    assert.match(send.request_text ?? '', /What is grace\?/);
    assert.match(send.response_text ?? '', /catholic_qa: What is grace\?/);
    assert.equal(get.result_kind, 'task');
    assert.equal(cancel.error_code, -32002);
    assert.match(cancel.error_message, /Task not cancelable/);
    assert.equal(cancel.result_kind, null);
    assert.equal(followUp.message_id, 'm-2');
    assert.equal(failed.message_id, 'm-3');
    assert.equal(failed.result_kind, 'task');
    assert.equal(stream.message_id, 'm-4');
  });

  step('conversations: the two messages of one contextId share an a2a conversation', () => {
    requireTable('a2a_calls');
    const [send, , , followUp, failed] = calls();
    assert.ok(send.conversation_id !== null, 'message/send has no conversation');
    assert.equal(followUp.conversation_id, send.conversation_id);
    assert.notEqual(failed.conversation_id, send.conversation_id);
    const conversation = (id) => sqlJson(
      `SELECT protocol, context_id FROM conversations WHERE id = ${Number(id)}`)[0];
    assert.deepEqual(conversation(send.conversation_id),
                     { protocol: 'a2a', context_id: recorded.task.contextId });
    assert.deepEqual(conversation(failed.conversation_id),
                     { protocol: 'a2a', context_id: recorded.failed.contextId });
  });

  step('stream_events: one row per event, in order, timed as they arrived', () => {
    requireTable('stream_events');
    const streamExchange = exchanges().at(-1);
    const events = sqlJson(
      `SELECT position, at_ns, event, event_id, data FROM stream_events
       WHERE exchange_id = ${Number(streamExchange.id)} ORDER BY position`);
    assert.equal(events.length, WIRE_KINDS.length);
    const payloads = events.map((e) => JSON.parse(e.data));
    assert.deepEqual(payloads.map((p) => p.result.kind), WIRE_KINDS);
    assert.ok(payloads.every((p) => p.id === 6));
    // The SDK server pauses DELAY_MS after each event; the recorder stamps arrivals.
    const gapsMs = events.slice(1).map((e, i) => (e.at_ns - events[i].at_ns) / 1e6);
    for (let i = 1; i < events.length; ++i) {
      assert.ok(events[i].position > events[i - 1].position);
    }
    assert.ok(gapsMs.every((gap) => gap >= 0.5 * DELAY_MS),
              `gaps ${gapsMs.map((g) => g.toFixed(0))} ms, expected about ${DELAY_MS} ms each`);
    const spreadMs = (events.at(-1).at_ns - events[0].at_ns) / 1e6;
    assert.ok(spreadMs >= 0.6 * STREAM_SPAN_MS && spreadMs < 10 * STREAM_SPAN_MS,
              `events recorded ${spreadMs} ms apart, the upstream spent ${STREAM_SPAN_MS} ms`);
  });
});

// ---------------------------------------------------------------------------------------------
// Topology 2: SDK client -> agentvcr replay of that archive

describe('replay: SDK client -> agentvcr replay of the archive', () => {
  const replayHelp = helpOf('replay');
  const startReplay = (name, extra = []) => startProcess(name, AGENTVCR, [
    'replay', '--db', archive, '--listen', '127.0.0.1:0',
    '--ready-file', path.join(work, `${name}.url`), ...extra,
  ], { readyFile: path.join(work, `${name}.url`) });
  const requireSwitch = (flag) =>
    assert.ok(replayHelp.includes(flag), `agentvcr replay has no ${flag} switch yet`);

  // A fresh client of the replay at `base`, built from the card the replay serves (which must
  // send the client's RPCs to the replay, not to the recorder that served it originally).
  async function replayClient(base) {
    const log = [];
    const client = await clientFactory(log).createFromUrl(base, CARD_PATH);
    return { client, log };
  }

  let replay;
  let client;
  let log;

  before(hook(async () => {
    assert.ok(existsSync(archive), 'topology 1 wrote no archive');
    assert.ok(recorded.cardText, 'topology 1 did not record the card');
    const pace = replayHelp.includes('--sse-pace') ? ['--sse-pace', 'recorded'] : [];
    replay = await startReplay('replay', pace);
    ({ client, log } = await replayClient(replay.url));
  }), HOOK);

  after(() => stopProcess(replay), HOOK);

  step('the recorded card is served, its url moved to the replay', () => {
    const [card] = log;
    assert.equal(card.status, 200, `card: ${card.responseText}`);
    const original = JSON.parse(recorded.cardText);
    assert.equal(card.response.url, `${replay.url}${RPC_PATH}`);
    assert.deepEqual({ ...card.response, url: undefined }, { ...original, url: undefined });
    assert.equal(client.protocolVersion, '0.3');
  });

  step('a call never recorded gets a clear JSON-RPC error, not a hang', async () => {
    const started = performance.now();
    const error = await client.sendMessage(message('m-x', 'Never asked while recording'), auth())
      .then((value) => assert.fail(`a miss was answered: ${JSON.stringify(value)}`), (e) => e);
    assert.ok(performance.now() - started < 10_000, 'the miss took too long');
    const rpc = log.at(-1);
    assert.ok(rpc.response?.error, `not a JSON-RPC error (HTTP ${rpc.status}): ${rpc.responseText}`);
    assert.equal(typeof rpc.response.error.code, 'number');
    assert.ok(rpc.response.error.message, 'the error says nothing');
    assert.equal(rpc.response.id, rpc.rpc.id, 'the error does not carry the request id');
    assert.equal(error.envelopeCode, rpc.response.error.code);
  });

  step('message/send: the recorded task, under the client\'s new JSON-RPC id', async () => {
    const task = await client.sendMessage(message('m-1', 'What is grace?'), auth());
    assert.deepEqual(task, recorded.task);
    const rpc = log.at(-1);
    // The miss above took id 1: this call's id is 2 where the recording has 1.
    assert.equal(rpc.rpc.id, 2);
    assert.equal(rpc.response.id, 2);
  });

  step('tasks/get: the recorded task', async () => {
    assert.deepEqual(await client.getTask(taskQuery(recorded.task.id), auth()), recorded.got);
  });

  step('tasks/cancel: the recorded error, with the new id', async () => {
    const error = await rpcError(client.cancelTask(cancelQuery(recorded.task.id), auth()));
    assert.deepEqual(error, recorded.cancelError);
    assert.equal(log.at(-1).response.id, log.at(-1).rpc.id);
  });

  step('message/send in the same context, and the failing input: as recorded', async () => {
    const followUp = await client.sendMessage(
      message('m-2', 'And sanctifying grace?', { contextId: recorded.task.contextId }), auth());
    assert.deepEqual(followUp, recorded.followUp);
    assert.deepEqual(await client.sendMessage(message('m-3', 'please fail now'), auth()),
                     recorded.failed);
  });

  step('message/stream, paced as recorded: the same events with similar gaps', async () => {
    requireSwitch('--sse-pace');
    const events = await collectStream(client, message('m-4', 'Stream the answer'), auth());
    assertStreamShape(events, 'replayed at the recorded pace');
    assert.deepEqual(events.map((e) => e.value), recorded.stream.map((e) => e.value));
    const gaps = (list) => list.slice(1).map((e, i) => e.at - list[i].at);
    const [replayed, live] = [gaps(events), gaps(recorded.stream)];
    const shown = `replayed gaps ${replayed.map((g) => g.toFixed(0))} ms, ` +
                  `recorded ${live.map((g) => g.toFixed(0))} ms`;
    assert.ok(span(events) >= 0.6 * span(recorded.stream), shown);
    // The first gap is left out: any lookup latency delays the first event, shortening it.
    replayed.slice(1).forEach((gap, i) => assert.ok(gap >= 0.5 * live[i + 1], shown));
  });

  step('message/stream, paced fast: the same events without the gaps', async () => {
    requireSwitch('--sse-pace');
    const fast = await startReplay('replay-fast', ['--sse-pace', 'fast']);
    try {
      const { client: fastClient } = await replayClient(fast.url);
      const events = await collectStream(fastClient, message('m-4', 'Stream the answer'), auth());
      assertStreamShape(events, 'replayed fast');
      assert.deepEqual(events.map((e) => e.value), recorded.stream.map((e) => e.value));
      assert.ok(span(events) < 0.3 * span(recorded.stream),
                `fast replay took ${span(events)} ms, recorded ${span(recorded.stream)} ms`);
    } finally {
      await stopProcess(fast);
    }
  });

  step('--a2a-ignore-message-id: a new messageId still finds the recording', async () => {
    requireSwitch('--a2a-ignore-message-id');
    // Without the switch, another messageId is another request.
    await rpcError(client.sendMessage(message('m-other', 'What is grace?'), auth()));
    const lenient = await startReplay('replay-ignore-id', ['--a2a-ignore-message-id']);
    try {
      const { client: lenientClient } = await replayClient(lenient.url);
      assert.deepEqual(
        await lenientClient.sendMessage(message('m-other', 'What is grace?'), auth()),
        recorded.task);
    } finally {
      await stopProcess(lenient);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Topology 3: SDK client -> agentvcr mock a2a (Magisterium profile)

describe('mock: SDK client -> agentvcr mock a2a --profile magisterium', () => {
  const TOKEN = 'good-token';
  // `mock a2a --help` of a binary without the subcommand prints the help of `mock`.
  const mockHelp = helpOf('mock', 'a2a');
  const haveMock = mockHelp.includes('--profile');
  const cardVersions = /--card-version/.test(mockHelp);
  const startMock = (name, extra = []) => startProcess(name, AGENTVCR, [
    'mock', 'a2a', '--profile', 'magisterium', '--listen', '127.0.0.1:0',
    '--ready-file', path.join(work, `${name}.url`), '--token', TOKEN, ...extra,
  ], { readyFile: path.join(work, `${name}.url`) });

  let mock;
  let client;
  const log = [];
  let task;

  before(hook(async () => {
    assert.ok(haveMock, '`agentvcr mock a2a` does not exist yet');
    mock = await startMock('mock', cardVersions ? ['--card-version', '0.3.0'] : []);
    client = await clientFactory(log).createFromUrl(mock.url, CARD_PATH);
  }), HOOK);

  after(() => stopProcess(mock), HOOK);

  step('the card leads the compat client to the v0.3 wire at the mock', () => {
    assert.equal(log[0].status, 200);
    assert.equal(log[0].response.protocolVersion, '0.3.0');
    assert.equal(log[0].response.capabilities.streaming, false);
    assert.equal(client.protocolVersion, '0.3');
  });

  step('message/send: a completed task with artifacts', async () => {
    task = await client.sendMessage(message('mm-1', 'What is grace?'), auth(TOKEN));
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.ok(task.id && task.contextId);
    assert.ok(task.artifacts.length >= 1);
    assert.ok(textOf(task.artifacts[0].parts).join('').length > 0, 'no text part');
    const rpc = log.at(-1);
    assert.equal(rpc.rpc.method, 'message/send');
    assert.equal(rpc.url.startsWith(mock.url), true, 'the card does not point at the mock');
  });

  step('tasks/get: the same task', async () => {
    const again = await client.getTask(taskQuery(task.id), auth(TOKEN));
    assert.equal(again.id, task.id);
    assert.equal(again.contextId, task.contextId);
    assert.equal(again.status.state, TaskState.TASK_STATE_COMPLETED);
  });

  step('tasks/cancel of the terminal task: -32602 Invalid state transition', async () => {
    const error = await rpcError(client.cancelTask(cancelQuery(task.id), auth(TOKEN)));
    assert.equal(error.code, -32602);
    assert.match(error.message, /Invalid state transition/);
    assert.equal(log.at(-1).status, 200);
  });

  step('a missing or invalid token: -32004 with HTTP 401', async () => {
    for (const options of [noAuth, auth('bad-token')]) {
      const error = await rpcError(client.sendMessage(message('mm-2', 'What is grace?'), options));
      assert.equal(error.code, -32004);
      assert.match(error.message, /Unauthorized/i);
      const rpc = log.at(-1);
      assert.equal(rpc.status, 401);
      assert.equal(rpc.response.id, rpc.rpc.id);
    }
  });

  step('an unknown skill: -32002', async () => {
    const error = await rpcError(client.sendMessage(
      message('mm-3', 'What is grace?', { skillId: 'no_such_skill' }), auth(TOKEN)));
    assert.equal(error.code, -32002);
    assert.match(error.message, /Skill not found/i);
    assert.equal(log.at(-1).status, 200);
  });

  step('protocolVersion 0.2.6 pitfall: the client sends SendMessage and gets -32601', async (t) => {
    if (!cardVersions) {
      t.skip('this mock has no --card-version switch');
      return;
    }
    const old = await startMock('mock-0.2.6', ['--card-version', '0.2.6']);
    try {
      const oldLog = [];
      const oldClient = await clientFactory(oldLog).createFromUrl(old.url, CARD_PATH);
      assert.equal(oldLog[0].response.protocolVersion, '0.2.6');
      const error = await rpcError(
        oldClient.sendMessage(message('mm-4', 'What is grace?'), auth(TOKEN)));
      assert.equal(error.code, -32601);
      const rpc = oldLog.at(-1);
      assert.equal(rpc.rpc.method, 'SendMessage');
      assert.equal(rpc.headers['a2a-version'], '1.0');
    } finally {
      await stopProcess(old);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Topology 4: the SDK client on the v1.0 wire -> agentvcr mock a2a --profile standard, directly
// and through agentvcr record; then agentvcr replay of what was recorded

describe('v1.0: SDK client -> mock a2a --profile standard, direct, recorded and replayed', () => {
  const v1Archive = path.join(work, 'a2a-v1.sqlite');
  // Same seed, same fixed clock: both mocks must answer the same requests with the same bytes.
  const reproducible = ['--seed', '11', '--clock', 'fixed:2026-12-03T09:00:00Z'];
  const startStandard = (name, extra = []) => startProcess(name, AGENTVCR, [
    'mock', 'a2a', '--profile', 'standard', '--listen', '127.0.0.1:0', '--stream-delay-ms', '20',
    '--ready-file', path.join(work, `${name}.url`), ...reproducible, ...extra,
  ], { readyFile: path.join(work, `${name}.url`) });
  const v1Message = (messageId, text, { taskId = '', skillId = 'echo' } = {}) => {
    const params = message(messageId, text, { skillId });
    params.message.taskId = taskId;
    return params;
  };


  const direct = { log: [] };
  const proxied = { log: [] };
  let directMock;
  let proxiedMock;
  let recorder;

  // The conversation of the issue, on the v1.0 wire: SendMessage -> GetTask -> CancelTask, then
  // a streamed story. Returns what the client got.
  async function converse(client, refusal = rpcError) {
    const sent = await client.sendMessage(v1Message('v1-m-1', 'Hello from v1.0'), noAuth);
    const got = await client.getTask(taskQuery(sent.id), noAuth);
    const canceled = await client.cancelTask(cancelQuery(sent.id), noAuth);
    const again = await refusal(client.cancelTask(cancelQuery(sent.id), noAuth));
    const stream = [];
    for await (const event of client.sendMessageStream(
      v1Message('v1-m-2', 'Tell me a story', { skillId: 'story' }), noAuth)) {
      stream.push({ kind: event.payload?.$case, value: event.payload?.value });
    }
    return { sent, got, canceled, again, stream };
  }

  before(hook(async () => {
    directMock = await startStandard('mock-v1-direct');
    direct.client = await clientFactory(direct.log).createFromUrl(directMock.url, V1_CARD_PATH);
    // The mock's card names the mock: the recorder points it at itself.
    proxiedMock = await startStandard('mock-v1-proxied');
    const recordReady = path.join(work, 'record-v1.url');
    recorder = await startProcess('record-v1', AGENTVCR, [
      'record', '--upstream', proxiedMock.url, '--listen', '127.0.0.1:0', '--db', v1Archive,
      '--ready-file', recordReady, '--no-probe', '--session', 'a2a-v1-e2e',
    ], { readyFile: recordReady });
    proxied.client = await clientFactory(proxied.log).createFromUrl(recorder.url, V1_CARD_PATH);
  }), HOOK);

  after(async () => {
    await stopProcess(recorder);
    await stopProcess(proxiedMock);
    await stopProcess(directMock);
  }, HOOK);

  step('the card leads the SDK client to the v1.0 wire, at the mock and through the proxy', () => {
    for (const [side, base] of [[direct, directMock.url], [proxied, recorder.url]]) {
      const card = side.log[0].response;
      assert.equal(card.supportedInterfaces[0].protocolVersion, '1.0');
      assert.equal(card.supportedInterfaces[0].url, `${base}${RPC_PATH}`);
      assert.equal(side.client.protocolVersion, '1.0');
    }
  });

  step('SendMessage -> GetTask -> CancelTask: input-required, the same task, canceled', async () => {
    direct.got = await converse(direct.client);
    const { sent, got, canceled, again, stream } = direct.got;
    assert.equal(sent.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.deepEqual(textOf(sent.artifacts[0].parts), ['You said: Hello from v1.0']);
    assert.equal(got.id, sent.id);
    assert.equal(got.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.equal(canceled.status.state, TaskState.TASK_STATE_CANCELED);
    assert.equal(again.code, -32002);
    assert.deepEqual(stream.map((e) => e.kind),
                     ['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate',
                      'artifactUpdate', 'statusUpdate']);
    assert.equal(stream.at(-1).value.status.state, TaskState.TASK_STATE_COMPLETED);
    const rpcs = direct.log.filter((entry) => entry.rpc);
    assert.deepEqual(rpcs.map((entry) => entry.rpc.method),
                     ['SendMessage', 'GetTask', 'CancelTask', 'CancelTask',
                      'SendStreamingMessage']);
    for (const entry of rpcs) {
      assert.equal(entry.headers['a2a-version'], '1.0');
      assert.equal(entry.responseText?.includes('"kind"') ?? false, false, 'ProtoJSON has no kind');
    }
  });

  step('through agentvcr record: byte-identical answers', async () => {
    proxied.got = await converse(proxied.client);
    const answers = (log) => log.filter((entry) => entry.rpc && entry.responseText !== undefined)
      .map((entry) => entry.responseText);
    const [mine, theirs] = [answers(direct.log), answers(proxied.log)];
    assert.equal(mine.length, 4);
    assert.deepEqual(theirs, mine);
    assert.deepEqual(proxied.got, direct.got);
  });

  step('the archive decodes the v1.0 calls into the same columns as v0.3 ones', async () => {
    await stopProcess(recorder);
    const rows = JSON.parse(execFileSync('sqlite3', ['-json', v1Archive,
      `SELECT method, wire_version, rpc_id, task_id, task_state, task_state_norm, result_kind,
              error_code
         FROM a2a_calls ORDER BY id`], { encoding: 'utf8' }));
    assert.deepEqual(rows.map((r) => [r.method, r.wire_version, r.task_state, r.task_state_norm,
                                      r.result_kind, r.error_code]), [
      ['SendMessage', '1.0', 'TASK_STATE_INPUT_REQUIRED', 'input-required', 'task', null],
      ['GetTask', '1.0', 'TASK_STATE_INPUT_REQUIRED', 'input-required', 'task', null],
      ['CancelTask', '1.0', 'TASK_STATE_CANCELED', 'canceled', 'task', null],
      ['CancelTask', '1.0', null, null, null, -32002],
      ['SendStreamingMessage', '1.0', 'TASK_STATE_COMPLETED', 'completed', 'status-update', null],
    ]);
    const taskId = direct.got.sent.id;
    assert.deepEqual(rows.slice(0, 4).map((r) => r.task_id), [taskId, taskId, taskId, taskId]);
  });

  step('the SDK\'s REST client gets the same conversation from the HTTP+JSON binding', async () => {
    const restMock = await startStandard('mock-v1-rest');
    try {
      const log = [];
      const client = await restClientFactory(log).createFromUrl(restMock.url, V1_CARD_PATH);
      assert.equal(client.protocolVersion, '1.0');
      // The SDK reads the binding's error into the class its ErrorInfo reason names.
      const restError = async (promise) => {
        const error = await promise.then(
          (value) => assert.fail(`expected an error, got ${JSON.stringify(value)}`), (e) => e);
        return { kind: error.constructor.name, status: error.statusCode };
      };
      const got = await converse(client, restError);
      // The same mock, seed and clock: the same tasks and stream, on the other binding.
      assert.deepEqual({ ...got, again: undefined }, { ...direct.got, again: undefined });
      assert.deepEqual(got.again, { kind: 'RestTaskNotCancelableError', status: 400 });
      const calls = log.filter((entry) => entry.url.includes('/api/v1/rest/'));
      assert.deepEqual(calls.map((entry) => `${entry.method} ${new URL(entry.url).pathname}`), [
        'POST /api/v1/rest/message:send',
        `GET /api/v1/rest/tasks/${got.sent.id}`,
        `POST /api/v1/rest/tasks/${got.sent.id}:cancel`,
        `POST /api/v1/rest/tasks/${got.sent.id}:cancel`,
        'POST /api/v1/rest/message:stream',
      ]);
      const refused = calls[3];
      assert.equal(refused.status, 400);
      assert.equal(refused.response.error.status, 'FAILED_PRECONDITION');
      assert.equal(refused.response.error.details[0].reason, 'TASK_NOT_CANCELABLE');
    } finally {
      await stopProcess(restMock);
    }
  });

  describe('agentvcr replay of the v1.0 archive', () => {
    let replay;
    let client;
    const log = [];

    before(hook(async () => {
      replay = await startProcess('replay-v1', AGENTVCR, [
        'replay', '--db', v1Archive, '--listen', '127.0.0.1:0', '--sse-pace', 'fast',
        '--ready-file', path.join(work, 'replay-v1.url'),
      ], { readyFile: path.join(work, 'replay-v1.url') });
      client = await clientFactory(log).createFromUrl(replay.url, V1_CARD_PATH);
    }), HOOK);

    after(() => stopProcess(replay), HOOK);

    step('the SDK client gets the same conversation back, stream included', async () => {
      assert.equal(client.protocolVersion, '1.0');
      assert.deepEqual(await converse(client), direct.got);
    });

    step('a GetTask under the caller\'s own JSON-RPC id is answered with that id', async () => {
      const body = { jsonrpc: '2.0', id: 'caller-7', method: 'GetTask',
                     params: { id: direct.got.sent.id } };
      const response = await fetch(`${replay.url}${RPC_PATH}`, {
        method: 'POST', body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      });
      const answer = await response.json();
      assert.equal(answer.id, 'caller-7');
      const recorded = JSON.parse(direct.log.filter((e) => e.rpc?.method === 'GetTask')[0]
        .responseText);
      assert.deepEqual({ ...answer, id: recorded.id }, recorded);
    });
  });
});

// Topology 5: the SDK's REST client (HTTP+JSON binding) -> agentvcr record -> mock a2a
// --profile standard, then -> agentvcr replay of that archive: the same conversation each time.

describe('HTTP+JSON: SDK REST client -> record -> mock, then -> replay', () => {
  const restArchive = path.join(work, 'a2a-rest.sqlite');
  const reproducible = ['--seed', '11', '--clock', 'fixed:2026-12-03T09:00:00Z'];
  let mock;
  let recorder;
  let replay;


  // SendMessage -> GetTask -> CancelTask twice -> a streamed story, on the REST binding.
  async function converse(client) {
    const refusal = async (promise) => {
      const error = await promise.then(
        (value) => assert.fail(`expected an error, got ${JSON.stringify(value)}`), (e) => e);
      return { kind: error.constructor.name, status: error.statusCode };
    };
    const ask = (id, text, skillId = 'echo') => message(id, text, { skillId });
    const sent = await client.sendMessage(ask('rest-m-1', 'Hello over REST'), noAuth);
    const got = await client.getTask(taskQuery(sent.id), noAuth);
    const canceled = await client.cancelTask(cancelQuery(sent.id), noAuth);
    const again = await refusal(client.cancelTask(cancelQuery(sent.id), noAuth));
    const stream = [];
    for await (const event of client.sendMessageStream(ask('rest-m-2', 'A story', 'story'),
                                                       noAuth)) {
      stream.push({ kind: event.payload?.$case, value: event.payload?.value });
    }
    return { sent, got, canceled, again, stream };
  }

  before(hook(async () => {
    mock = await startProcess('mock-rest', AGENTVCR, [
      'mock', 'a2a', '--profile', 'standard', '--listen', '127.0.0.1:0', '--stream-delay-ms', '20',
      '--ready-file', path.join(work, 'mock-rest.url'), ...reproducible,
    ], { readyFile: path.join(work, 'mock-rest.url') });
    recorder = await startProcess('record-rest', AGENTVCR, [
      'record', '--upstream', mock.url, '--listen', '127.0.0.1:0', '--db', restArchive,
      '--ready-file', path.join(work, 'record-rest.url'), '--no-probe', '--session', 'a2a-rest-e2e',
    ], { readyFile: path.join(work, 'record-rest.url') });
  }), HOOK);

  after(async () => {
    await stopProcess(replay);
    await stopProcess(recorder);
    await stopProcess(mock);
  }, HOOK);

  const recorded = {};

  step('through agentvcr record, the REST client converses and the archive decodes it', async () => {
    const log = [];
    const client = await restClientFactory(log).createFromUrl(recorder.url, V1_CARD_PATH);
    recorded.got = await converse(client);
    assert.equal(recorded.got.sent.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.equal(recorded.got.canceled.status.state, TaskState.TASK_STATE_CANCELED);
    assert.deepEqual(recorded.got.again, { kind: 'RestTaskNotCancelableError', status: 400 });
    assert.equal(recorded.got.stream.at(-1).value.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.ok(log.some((entry) => entry.url === `${recorder.url}/api/v1/rest/message:send`),
              'the card led the client through the recorder');
    await stopProcess(recorder);
    recorder = undefined;
    const rows = JSON.parse(execFileSync('sqlite3', ['-json', restArchive,
      `SELECT method, wire_version, task_state_norm, error_code FROM a2a_calls ORDER BY id`],
      { encoding: 'utf8' }));
    assert.deepEqual(rows.map((r) => [r.method, r.wire_version, r.task_state_norm, r.error_code]), [
      ['SendMessage', '1.0', 'input-required', null],
      ['GetTask', '1.0', 'input-required', null],
      ['CancelTask', '1.0', 'canceled', null],
      ['CancelTask', '1.0', null, -32002],
      ['SendStreamingMessage', '1.0', 'completed', null],
    ]);
  });

  step('from agentvcr replay, the REST client gets the same conversation back', async () => {
    replay = await startProcess('replay-rest', AGENTVCR, [
      'replay', '--db', restArchive, '--listen', '127.0.0.1:0', '--sse-pace', 'fast',
      '--ready-file', path.join(work, 'replay-rest.url'),
    ], { readyFile: path.join(work, 'replay-rest.url') });
    const client = await restClientFactory([]).createFromUrl(replay.url, V1_CARD_PATH);
    assert.deepEqual(await converse(client), recorded.got);
  });
});

// Topology 6: the SDK's REST client -> agentvcr record -> the SDK's own REST server.

describe('HTTP+JSON: SDK REST client -> record -> SDK REST server', () => {
  const sdkRestArchive = path.join(work, 'a2a-sdk-rest.sqlite');
  let server;
  let recorder;

  before(hook(async () => {
    const recordReady = path.join(work, 'record-sdk-rest.url');
    server = await startProcess('sdk-server-rest', process.execPath,
                                [path.join(here, 'sdk-server.mjs')], {
      readyFile: path.join(work, 'sdk-server-rest.url'),
      env: { PORT: '0', READY_FILE: path.join(work, 'sdk-server-rest.url'),
             STREAM_DELAY_MS: '20' },
    });
    recorder = await startProcess('record-sdk-rest', AGENTVCR, [
      'record', '--upstream', server.url, '--listen', '127.0.0.1:0', '--db', sdkRestArchive,
      '--ready-file', recordReady, '--no-probe', '--session', 'a2a-sdk-rest-e2e',
    ], { readyFile: recordReady });
  }), HOOK);

  after(async () => {
    await stopProcess(recorder);
    await stopProcess(server);
  }, HOOK);

  step('the SDK server\'s REST answers reach the client and the archive as REST calls', async () => {
    const log = [];
    const client = await restClientFactory(log).createFromUrl(recorder.url, V1_CARD_PATH);
    const sent = await client.sendMessage(message('rest-sdk-1', 'What is grace?'), noAuth);
    assert.equal(sent.status.state, TaskState.TASK_STATE_COMPLETED);
    const got = await client.getTask(taskQuery(sent.id), noAuth);
    assert.equal(got.id, sent.id);
    assert.ok(log.some((entry) => entry.url === `${recorder.url}/api/v1/rest/message:send`),
              'the client followed the card through the recorder');
    await stopProcess(recorder);
    recorder = undefined;
    const rows = JSON.parse(execFileSync('sqlite3', ['-json', sdkRestArchive,
      `SELECT c.method, c.wire_version, c.task_id, c.task_state_norm, e.route
         FROM a2a_calls c JOIN exchanges e ON e.id = c.exchange_id ORDER BY c.id`],
      { encoding: 'utf8' }));
    assert.deepEqual(rows.map((r) => [r.method, r.wire_version, r.task_id, r.task_state_norm,
                                      r.route]), [
      ['SendMessage', '1.0', sent.id, 'completed', 'a2a.rest'],
      ['GetTask', '1.0', sent.id, 'completed', 'a2a.rest'],
    ]);
  });
});
