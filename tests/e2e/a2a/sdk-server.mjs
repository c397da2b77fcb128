// An A2A server built with the official @a2a-js/sdk, speaking the legacy v0.3 JSON-RPC wire and
// the v1.0 HTTP+JSON binding (under /api/v1/rest): the independent upstream that agentvcr's A2A
// end-to-end tests record (a2a.test.mjs).
//
//   PORT=0 READY_FILE=/tmp/sdk.url node sdk-server.mjs
//
// Environment:
//   PORT              port to listen on, on 127.0.0.1 (0, the default: any free port)
//   READY_FILE        once listening, "http://127.0.0.1:<port>" is written here (and printed)
//   STREAM_DELAY_MS   pause between two events of message/stream (default 300)
//
// Behaviour, per message:
//   * message/send: a synchronous skill, like Magisterium's: a completed Task whose artifact
//     holds a text part "<skillId>: <text>" and a data part with citations. A text containing
//     "please fail" gives a failed Task whose status.message says why.
//   * message/stream: Task (submitted), status-update (working), STREAM_CHUNKS artifact-updates
//     of one artifact, then the final status-update (completed), STREAM_DELAY_MS apart.
//   * tasks/get, tasks/cancel: the SDK's own handling (cancel of a terminal task: -32002).
import { renameSync, writeFileSync } from 'node:fs';
import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import {
  UserBuilder, agentCardHandler, jsonRpcHandler, restHandler,
} from '@a2a-js/sdk/server/express';

const RPC_PATH = '/api/v1/a2a';
const REST_PATH = '/api/v1/rest';
const FAIL_TRIGGER = 'please fail';
const STREAM_CHUNKS = 3;
const streamDelayMs = Number(process.env.STREAM_DELAY_MS ?? 300);
const compat = { legacyCompat: { enabled: true } };

// The card names this server's own address; agentvcr record points it at itself.
let listeningBase = '';
const rpcUrl = () => `${listeningBase}${RPC_PATH}`;
const restUrl = () => `${listeningBase}${REST_PATH}`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const part = (kind, value, mediaType = '') =>
  ({ content: { $case: kind, value }, filename: '', mediaType, metadata: undefined });
const agentMessage = (ctx, id, text) => ({
  messageId: id, contextId: ctx.contextId, taskId: ctx.taskId, role: Role.ROLE_AGENT,
  parts: [part('text', text, 'text/plain')], metadata: undefined, extensions: [],
  referenceTaskIds: [],
});
// A fixed timestamp keeps answers comparable between the live run and its replay.
const status = (state, message = undefined) =>
  ({ state, message, timestamp: '2025-01-01T00:00:00.000Z' });

function answerOf(ctx) {
  const question = ctx.userMessage;
  const skillId = question.metadata?.skillId ?? 'catholic_qa';
  const text = question.parts.find((p) => p.content?.$case === 'text')?.content.value ?? '';
  return { question, skillId, text, answer: `${skillId}: ${text}` };
}

// message/send: one terminal Task, published at once.
function executeSynchronous(ctx, bus) {
  const { question, skillId, text, answer } = answerOf(ctx);
  if (text.includes(FAIL_TRIGGER)) {
    const why = agentMessage(ctx, `r-${question.messageId}`, `${skillId} failed: asked to fail`);
    bus.publish(AgentEvent.task({
      id: ctx.taskId, contextId: ctx.contextId, history: [question], metadata: { skillId },
      status: status(TaskState.TASK_STATE_FAILED, why), artifacts: [],
    }));
    return;
  }
  const reply = agentMessage(ctx, `r-${question.messageId}`, answer);
  bus.publish(AgentEvent.task({
    id: ctx.taskId, contextId: ctx.contextId, history: [question, reply], metadata: { skillId },
    status: status(TaskState.TASK_STATE_COMPLETED),
    artifacts: [{
      artifactId: 'a-0', name: 'answer', description: '', metadata: undefined, extensions: [],
      parts: [part('text', answer, 'text/plain'),
              part('data', { citations: [{ title: 'Catechism', ref: 'CCC 1996' }] },
                   'application/json')],
    }],
  }));
}

// message/stream: a long-running task whose events are spaced STREAM_DELAY_MS apart.
async function executeStreaming(ctx, bus) {
  const { question, skillId, answer } = answerOf(ctx);
  const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
  bus.publish(AgentEvent.task({
    id: ctx.taskId, contextId: ctx.contextId, history: [question], metadata: { skillId },
    status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [],
  }));
  await sleep(streamDelayMs);
  bus.publish(AgentEvent.statusUpdate({
    ...ids, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined,
  }));
  for (let chunk = 0; chunk < STREAM_CHUNKS; ++chunk) {
    await sleep(streamDelayMs);
    bus.publish(AgentEvent.artifactUpdate({
      ...ids, append: chunk > 0, lastChunk: chunk === STREAM_CHUNKS - 1, metadata: undefined,
      artifact: {
        artifactId: 'stream-0', name: 'answer', description: '', metadata: undefined,
        extensions: [], parts: [part('text', `${answer} [part ${chunk + 1}]`, 'text/plain')],
      },
    }));
  }
  await sleep(streamDelayMs);
  bus.publish(AgentEvent.statusUpdate({
    ...ids, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined,
  }));
}

// The executor does not see the JSON-RPC method; a message/stream request is the one that
// accepts an event stream (the SDK client sends `Accept: text/event-stream` for it alone).
const wantsStream = (ctx) =>
  String(ctx.context?.state?.get('headers')?.accept ?? '').includes('text/event-stream');
const executor = {
  async execute(ctx, bus) {
    if (wantsStream(ctx)) {
      await executeStreaming(ctx, bus);
    } else {
      executeSynchronous(ctx, bus);
    }
  },
  async cancelTask() {},
};

const skills = [
  { id: 'catholic_qa', name: 'QA', description: 'answers a question', tags: ['qa'] },
  { id: 'document_search', name: 'Search', description: 'searches documents', tags: ['search'] },
];
// The v1.0 card the handler works from; its 0.3 JSON-RPC interface enables the legacy path, and
// the HTTP+JSON interface (last, so JSON-RPC stays a client's first choice) the REST binding.
const iface = (version, binding = 'JSONRPC') =>
  ({ url: binding === 'JSONRPC' ? rpcUrl() : restUrl(), protocolBinding: binding,
     protocolVersion: version, tenant: '' });
const pointInterfaces = () => {
  for (const i of card.supportedInterfaces) {
    i.url = i.protocolBinding === 'JSONRPC' ? rpcUrl() : restUrl();
  }
};
const card = {
  name: 'agentvcr-e2e-sdk-server', description: 'A2A SDK server behind agentvcr', version: '0.0.1',
  supportedInterfaces: [iface('1.0'), iface('0.3'), iface('1.0', 'HTTP+JSON')],
  provider: { organization: 'agentvcr tests', url: 'http://127.0.0.1' },
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {}, securityRequirements: [], signatures: [],
  defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
  skills: skills.map((s) => ({ ...s, examples: [], inputModes: [], outputModes: [],
                               securityRequirements: [] })),
};
// The pure v0.3 card (no supportedInterfaces; protocolVersion in [0.3, 1.0)), so that a compat
// client picks the legacy wire.
const v03Card = () => ({
  protocolVersion: '0.3.0', name: card.name, description: card.description, version: card.version,
  url: rpcUrl(), preferredTransport: 'JSONRPC',
  capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: true },
  defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
  skills,
});

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.get('/.well-known/agent.json', (_req, res) => {
  res.set('Cache-Control', 'public, max-age=3600').json(v03Card());
});
// The hybrid card of the SDK's own handler, kept pointing at the same public base.
app.use(`/${AGENT_CARD_PATH}`, (_req, _res, next) => {
  pointInterfaces();
  next();
}, agentCardHandler({ agentCardProvider: handler, ...compat }));
app.use(RPC_PATH, jsonRpcHandler({
  requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...compat,
}));
app.use(REST_PATH, restHandler({
  requestHandler: handler, userBuilder: UserBuilder.noAuthentication,
}));

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  listeningBase = `http://127.0.0.1:${server.address().port}`;
  pointInterfaces();
  if (process.env.READY_FILE) {
    writeFileSync(`${process.env.READY_FILE}.tmp`, listeningBase);
    renameSync(`${process.env.READY_FILE}.tmp`, process.env.READY_FILE);
  }
  console.log(`sdk-server listening on ${listeningBase}`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
