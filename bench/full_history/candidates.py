#!/usr/bin/python3
"""Measures, offline, how the candidate designs of issue 58 would store the bodies of a
recording, and how much CPU they take to encode and decode. Reads the bodies from an archive
through `agentvcr export --format jsonl` (so they are the bytes the archive gives back), checks
every candidate decodes them byte for byte, and sets each against `zstd -19 --long=27` of the
same bodies concatenated (the zstd command line).

    /usr/bin/python3 candidates.py --agentvcr build/release/cli/agentvcr \\
        --out bench/results/full-history-candidates.md 10x100.sqlite 2x300.sqlite

Needs python3-zstandard (Debian: apt-get install python3-zstandard) and the zstd command.
The figures replace what lies between the page's figure markers; the rest of the page (the
analysis) is kept. CPU is this process's (time.process_time): zstd's own work runs in C
(python-zstandard), the chunking and the JSON walks in Python, so their CPU is an upper bound
far above what C++ would take; compare zstd figures with zstd figures.
"""

import argparse
import base64
import hashlib
import json
import os
import random
import subprocess
import sys
import time

import zstandard

LEVEL = 3  # the candidates' zstd level: cheap enough for a recorder's hot path


class Exchange:
    __slots__ = ("req", "resp", "conv", "depth")

    def __init__(self, req, resp, conv, depth):
        self.req, self.resp, self.conv, self.depth = req, resp, conv, depth


def body_bytes(value):
    if isinstance(value, dict):  # {"base64": ...}: not UTF-8
        return base64.b64decode(value["base64"])
    return value.encode("utf-8")


def load(agentvcr, db):
    out = subprocess.run([agentvcr, "export", "--db", db, "--format", "jsonl"],
                         check=True, capture_output=True).stdout
    exchanges = []
    for line in out.splitlines():
        row = json.loads(line)
        if "session" in row:
            continue
        steps = row.get("steps") or []
        conv = steps[0]["conversation_id"] if steps else None
        depth = steps[0]["depth"] if steps else None
        exchanges.append(Exchange(body_bytes(row["request_body"]),
                                  body_bytes(row["response_body"]), conv, depth))
    return exchanges


def zstd_cli(data):
    return len(subprocess.run(["zstd", "-q", "-19", "--long=27", "-c"], input=data,
                              check=True, capture_output=True).stdout)


def bodies(exchanges):
    for e in exchanges:
        yield e.req
        yield e.resp


class Result:
    def __init__(self, name):
        self.name = name
        self.stored = 0
        self.encode_s = 0.0
        self.decode_s = 0.0
        self.worst_read = 0  # bytes read to decode the costliest single body
        self.note = ""


# ---- each body alone ---------------------------------------------------------------------------

def alone(exchanges, level):
    r = Result(f"each body zstd-compressed alone (level {level})")
    c = zstandard.ZstdCompressor(level=level)
    d = zstandard.ZstdDecompressor()
    frames = []
    t = time.process_time()
    for b in bodies(exchanges):
        frames.append(c.compress(b))
    r.encode_s = time.process_time() - t
    r.stored = sum(len(f) for f in frames)
    r.worst_read = max(len(f) for f in frames)
    t = time.process_time()
    for f, b in zip(frames, bodies(exchanges)):
        if d.decompress(f) != b:
            sys.exit("alone: a body did not come back byte for byte")
    r.decode_s = time.process_time() - t
    return r


# ---- content-defined chunking ------------------------------------------------------------------

GEAR = [random.Random(58).getrandbits(64) for _ in range(256)]
MASK64 = (1 << 64) - 1


def cut_points(data, lo, avg, hi):
    """FastCDC-style: no cut before lo, a harder condition up to avg, an easier one after,
    always a cut at hi. The gear hash's top bits decide (they depend on the last 64 bytes)."""
    bits = avg.bit_length() - 1
    hard, easy = 1 << (64 - bits - 1), 1 << (64 - bits + 1)
    gear = GEAR
    n, start, cuts = len(data), 0, []
    while start < n:
        if n - start <= lo:
            cuts.append(n)
            break
        i, h = start + lo, 0
        norm, end = min(start + avg, n), min(start + hi, n)
        cut = end
        for b in data[i:norm]:
            h = ((h << 1) + gear[b]) & MASK64
            i += 1
            if h < hard:
                cut = i
                break
        else:
            for b in data[i:end]:
                h = ((h << 1) + gear[b]) & MASK64
                i += 1
                if h < easy:
                    cut = i
                    break
        cuts.append(cut)
        start = cut
    return cuts


def cdc(exchanges, lo, avg, hi):
    r = Result(f"content-defined chunks {lo}-{avg}-{hi} B, de-duplicated, each compressed")
    c = zstandard.ZstdCompressor(level=LEVEL)
    store = {}  # chunk digest -> zstd frame
    recipes = []
    recipe_bytes = recipe_zstd = 0
    t = time.process_time()
    for b in bodies(exchanges):
        recipe, start = [], 0
        for cut in cut_points(b, lo, avg, hi):
            piece = b[start:cut]
            key = hashlib.blake2b(piece, digest_size=8).digest()
            if key not in store:
                store[key] = c.compress(piece)
            recipe.append(key)
            start = cut
        recipes.append(recipe)
        flat = b"".join(recipe)  # a recipe: 8 bytes per chunk (a chunk's row id would do)
        recipe_bytes += len(flat)
        recipe_zstd += min(len(flat), len(c.compress(flat)))
    r.encode_s = time.process_time() - t
    chunk_bytes = sum(len(f) for f in store.values())
    r.stored = chunk_bytes + recipe_zstd
    d = zstandard.ZstdDecompressor()
    t = time.process_time()
    for recipe, b in zip(recipes, bodies(exchanges)):
        if b"".join(d.decompress(store[k]) for k in recipe) != b:
            sys.exit("cdc: a body did not come back byte for byte")
    r.decode_s = time.process_time() - t
    r.worst_read = max(sum(len(store[k]) for k in recipe) + 8 * len(recipe) for recipe in recipes)
    r.note = (f"{len(store):,} distinct chunks, {chunk_bytes:,} B compressed; recipes "
              f"{recipe_bytes:,} B raw, {recipe_zstd:,} B compressed")
    return r


# ---- against the parent step -------------------------------------------------------------------

def parents(exchanges):
    """Index of each exchange's parent step (same conversation, one level up), or None."""
    at = {(e.conv, e.depth): i for i, e in enumerate(exchanges) if e.conv is not None}
    return [at.get((e.conv, e.depth - 1)) if e.conv is not None and e.depth else None
            for e in exchanges]


def raw_reference(content):
    return zstandard.ZstdCompressionDict(content, dict_type=zstandard.DICT_TYPE_RAWCONTENT)


def compressor_against(content):
    return zstandard.ZstdCompressor(level=LEVEL, dict_data=raw_reference(content))


def decode_against(parent_bodies, frame_pair, own_request):
    base = parent_bodies[0] + parent_bodies[1]
    req = zstandard.ZstdDecompressor(dict_data=raw_reference(base)).decompress(frame_pair[0])
    answer_ref = raw_reference(base + req) if own_request else raw_reference(base)
    return req, zstandard.ZstdDecompressor(dict_data=answer_ref).decompress(frame_pair[1])


def against_parent(exchanges, keyframe_every, own_request=False, chained_keyframes=False):
    """own_request: the answer is compressed against its own request too (after the parent's
    bodies), which holds the memory the answer extends. chained_keyframes: a keyframe is
    compressed against the keyframe keyframe_every steps up rather than alone, so reading a body
    decodes the keyframes back to the conversation's root, then at most keyframe_every steps."""
    r = Result(f"against the parent step's request and answer"
               f"{' (the answer also against its request)' if own_request else ''}, keyframe "
               f"every {keyframe_every}"
               f"{' against the keyframe before it' if chained_keyframes else ''}")
    parent = parents(exchanges)
    ref_of, keyframes = [], 0  # the exchange whose bodies a body is compressed against, or None
    for i, e in enumerate(exchanges):
        if parent[i] is None:
            ref_of.append(None)
        elif e.depth % keyframe_every:
            ref_of.append(parent[i])
        else:
            keyframes += 1
            ancestor = i
            for _ in range(keyframe_every):
                ancestor = parent[ancestor]
            ref_of.append(ancestor if chained_keyframes else None)
    keyframes += sum(1 for p in parent if p is None)
    plain = zstandard.ZstdCompressor(level=LEVEL)
    frames = []
    t = time.process_time()
    for i, e in enumerate(exchanges):
        ref = ref_of[i]
        if ref is None:
            frames.append((plain.compress(e.req), plain.compress(e.resp)))
            continue
        base = exchanges[ref].req + exchanges[ref].resp
        c = compressor_against(base)
        answer = compressor_against(base + e.req) if own_request else c
        frames.append((c.compress(e.req), answer.compress(e.resp)))
    r.encode_s = time.process_time() - t
    r.stored = sum(len(a) + len(b) for a, b in frames)
    # Reading one body: its frame and every frame it refers to, back to a self-contained one.
    chain = []
    for i in range(len(exchanges)):
        own = len(frames[i][0]) + len(frames[i][1])
        chain.append(own if ref_of[i] is None else own + chain[ref_of[i]])
    r.worst_read = max(chain)
    plain_d = zstandard.ZstdDecompressor()

    def decode(i, ref_bodies):
        if ref_of[i] is None:
            return tuple(plain_d.decompress(f) for f in frames[i])
        return decode_against(ref_bodies, frames[i], own_request)

    t = time.process_time()
    decoded = [None] * len(exchanges)
    for i, e in enumerate(exchanges):  # references come first: exchanges are in recorded order
        decoded[i] = decode(i, decoded[ref_of[i]] if ref_of[i] is not None else None)
        if decoded[i] != (e.req, e.resp):
            sys.exit("parent: a body did not come back byte for byte")
    r.decode_s = time.process_time() - t
    worst = max(range(len(exchanges)), key=lambda i: chain[i])
    t = time.perf_counter()
    steps, i = [], worst
    while i is not None:
        steps.append(i)
        i = ref_of[i]
    prev = None
    for i in reversed(steps):
        prev = decode(i, prev)
    r.note = (f"{keyframes:,} keyframes; the costliest body decodes a chain of "
              f"{len(steps)} frames in {(time.perf_counter() - t) * 1e3:.1f} ms")
    return r


def conversation_stream(exchanges, keyframe_every):
    """The same reference, kept warm: one zstd stream per conversation, each body flushed as
    its own block, so a body is compressed against everything since the keyframe (its parent's
    bodies the nearest) without indexing a reference again; a new stream every keyframe_every
    steps. Reading a body decodes the stream from its keyframe. Holds while a conversation's
    steps arrive in order, one after the other (BENCH's case; a GEN branch would start a new
    stream or fall back to a reference)."""
    r = Result(f"one zstd stream per conversation, each body a flushed block, new stream every "
               f"{keyframe_every}")
    params = zstandard.ZstdCompressionParameters.from_level(LEVEL, window_log=23)
    streams, pieces, start_of = {}, [], []
    t = time.process_time()
    for i, e in enumerate(exchanges):
        key = e.conv if e.conv is not None else ("alone", i)
        if e.conv is None or e.depth % keyframe_every == 0:
            streams[key] = (zstandard.ZstdCompressor(compression_params=params).compressobj(), i)
        cobj, first = streams[key]
        start_of.append(first)
        pair = []
        for body in (e.req, e.resp):
            pair.append(cobj.compress(body) + cobj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK))
        pieces.append(tuple(pair))
    r.encode_s = time.process_time() - t
    r.stored = sum(len(a) + len(b) for a, b in pieces)
    chain = {}
    for i, e in enumerate(exchanges):
        own = len(pieces[i][0]) + len(pieces[i][1])
        prev = chain.get((e.conv, start_of[i]), 0) if e.conv is not None else 0
        chain[(e.conv, start_of[i])] = prev + own
        r.worst_read = max(r.worst_read, prev + own)
    t = time.process_time()
    dobjs = {}
    for i, e in enumerate(exchanges):
        key = (e.conv, start_of[i]) if e.conv is not None else ("alone", i)
        if key not in dobjs:
            dobjs[key] = zstandard.ZstdDecompressor(max_window_size=1 << 23).decompressobj()
        d = dobjs[key]
        if (d.decompress(pieces[i][0]), d.decompress(pieces[i][1])) != (e.req, e.resp):
            sys.exit("stream: a body did not come back byte for byte")
    r.decode_s = time.process_time() - t
    r.note = "window 8 MiB; the costliest body decodes its stream from the keyframe"
    return r


def segmented_stream(exchanges, every, anchor_every):
    """The stream and the chained keyframes together: a conversation's bodies go through a zstd
    stream (one flushed block per body) cut into segments of `every` steps; a segment's stream
    starts with the bodies of the previous segment's first step as a raw-content prefix, except
    every `anchor_every` steps, where it starts from nothing. Reading a body decodes the first
    step of each segment back to the anchor, then its own segment up to it."""
    r = Result(f"one zstd stream per segment of {every} steps, each against the segment "
               f"before's first step, self-contained every {anchor_every}")
    params = zstandard.ZstdCompressionParameters.from_level(LEVEL, window_log=23)
    at = {(e.conv, e.depth): i for i, e in enumerate(exchanges) if e.conv is not None}
    segment_of, prefix_of, streams, pieces = [], {}, {}, []
    t = time.process_time()
    for i, e in enumerate(exchanges):
        key = (e.conv, e.depth // every) if e.conv is not None else ("alone", i)
        segment_of.append(key)
        if key not in streams:
            first = key[1] * every if e.conv is not None else 0
            ref = None if e.conv is None or first % anchor_every == 0 \
                else at[(e.conv, first - every)]
            prefix_of[key] = ref
            c = zstandard.ZstdCompressor(compression_params=params) if ref is None else \
                zstandard.ZstdCompressor(compression_params=params, dict_data=raw_reference(
                    exchanges[ref].req + exchanges[ref].resp))
            streams[key] = c.compressobj()
        cobj = streams[key]
        pieces.append(tuple(cobj.compress(b) + cobj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
                            for b in (e.req, e.resp)))
    r.encode_s = time.process_time() - t
    r.stored = sum(len(a) + len(b) for a, b in pieces)

    def size(i):
        return len(pieces[i][0]) + len(pieces[i][1])

    def keyframe_chain(key):  # bytes read to decode the segment's prefix
        ref = prefix_of[key]
        return 0 if ref is None else size(ref) + keyframe_chain(segment_of[ref])

    within, worst_i = {}, 0
    read = []
    for i in range(len(exchanges)):
        key = segment_of[i]
        within[key] = within.get(key, 0) + size(i)
        read.append(within[key] + keyframe_chain(key))
        if read[i] > read[worst_i]:
            worst_i = i
    r.worst_read = read[worst_i]

    def decompressor(key, decoded_prefix):
        if prefix_of[key] is None:
            return zstandard.ZstdDecompressor(max_window_size=1 << 23).decompressobj()
        return zstandard.ZstdDecompressor(
            max_window_size=1 << 23,
            dict_data=raw_reference(decoded_prefix[0] + decoded_prefix[1])).decompressobj()

    t = time.process_time()
    decoded, dobjs = [None] * len(exchanges), {}
    for i, e in enumerate(exchanges):
        key = segment_of[i]
        if key not in dobjs:
            ref = prefix_of[key]
            dobjs[key] = decompressor(key, decoded[ref] if ref is not None else None)
        d = dobjs[key]
        decoded[i] = (d.decompress(pieces[i][0]), d.decompress(pieces[i][1]))
        if decoded[i] != (e.req, e.resp):
            sys.exit("segments: a body did not come back byte for byte")
    r.decode_s = time.process_time() - t
    # Time the costliest read alone: the keyframes from the anchor, then the segment.
    t = time.perf_counter()
    keys, key = [], segment_of[worst_i]
    while True:
        keys.append(key)
        ref = prefix_of[key]
        if ref is None:
            break
        key = segment_of[ref]
    prefix, frames = None, 0
    for key in reversed(keys[1:]):
        d = decompressor(key, prefix)
        first = next(j for j in range(len(exchanges)) if segment_of[j] == key)
        prefix = (d.decompress(pieces[first][0]), d.decompress(pieces[first][1]))
        frames += 1
    d = decompressor(keys[0], prefix)
    for j in range(len(exchanges)):
        if segment_of[j] == keys[0] and j <= worst_i:
            d.decompress(pieces[j][0])
            d.decompress(pieces[j][1])
            frames += 1
    r.note = (f"the costliest body decodes {frames} steps' bodies in "
              f"{(time.perf_counter() - t) * 1e3:.1f} ms")
    return r


# ---- JSON values shared by hash ----------------------------------------------------------------

def json_shared(exchanges):
    """Every distinct JSON value (subtree) stored once: an object as its keys and its children's
    8-byte digests, an array as its children's digests, a scalar as its text. A body is its root
    digest and its formatting (BENCH's json.dumps or FastAPI's compact form, checked to give the
    bytes back); the values a body brings first are compressed together."""
    r = Result("JSON values shared by hash (each distinct subtree once)")
    c = zstandard.ZstdCompressor(level=LEVEL)
    seen = set()
    stored = raw = verbatim = 0

    def node(value, new):
        if isinstance(value, dict):
            enc = b"o" + b"".join(len(k).to_bytes(4, "little") + k.encode() + node(v, new)
                                  for k, v in value.items())
        elif isinstance(value, list):
            enc = b"a" + b"".join(node(v, new) for v in value)
        elif isinstance(value, str):
            enc = b"s" + value.encode("utf-8", "surrogatepass")
        else:
            enc = b"n" + json.dumps(value).encode()
        key = hashlib.blake2b(enc, digest_size=8).digest()
        if key not in seen:
            seen.add(key)
            new.append(enc)
        return key

    t = time.process_time()
    for b in bodies(exchanges):
        try:
            value = json.loads(b)
        except ValueError:
            value = None
        forms = ([json.dumps(value).encode(), json.dumps(value, ensure_ascii=False,
                                                         separators=(",", ":")).encode()]
                 if value is not None else [])
        if b not in forms:  # not one of the two formattings: kept as it is
            verbatim += 1
            stored += len(c.compress(b))
            continue
        new = []
        node(value, new)
        block = b"".join(len(x).to_bytes(4, "little") + x for x in new)
        raw += len(block)
        stored += len(c.compress(block)) + 8 + 1  # the root's digest and the formatting
    r.encode_s = time.process_time() - t
    r.stored = stored
    r.decode_s = float("nan")
    r.worst_read = 0
    r.note = (f"{len(seen):,} distinct values, {raw:,} B before compression; {verbatim} "
              "bodies kept verbatim; decoding not measured (a read walks the body's values: "
              "as many lookups as the body has values, however long the conversation)")
    return r


# ---- internal steps' prompts -------------------------------------------------------------------

def prompts(exchanges):
    """The internal steps' prompts as copies, or as references: the texts of the step's input
    memory and instruction that the prompt repeats become (entry, 4-byte) references and only
    what lies between them is kept, the whole compressed per prompt."""
    c = zstandard.ZstdCompressor(level=LEVEL)
    copies = copies_z = refs_z = refs_raw = count = rebuilt = 0
    t_copy = t_ref = 0.0
    for e in exchanges:
        if e.conv is None:
            continue
        req, resp = json.loads(e.req), json.loads(e.resp)
        inp = req["inputs"][0]
        texts = [h["content"] for h in inp.get("memory", {}).get("history", [])
                 if isinstance(h, dict) and isinstance(h.get("content"), str)]
        texts.append(inp["instruction"]["content"])
        for out in resp:
            for step in out.get("internal_steps") or []:
                p = step.get("full_prompt")
                if not isinstance(p, str):
                    continue
                count += 1
                data = p.encode("utf-8")
                t = time.process_time()
                copies += len(data)
                copies_z += len(c.compress(data))
                t_copy += time.process_time() - t
                t = time.process_time()
                parts, pos, pieces = [], 0, []
                for k, text in enumerate(texts):
                    at = p.find(text, pos) if text else -1
                    if at < 0:
                        continue
                    parts.append(p[pos:at].encode() + b"\0" + k.to_bytes(4, "little"))
                    pieces.append((p[pos:at], k))
                    pos = at + len(text)
                parts.append(p[pos:].encode())
                flat = b"".join(parts)
                refs_raw += len(flat)
                refs_z += len(c.compress(flat))
                t_ref += time.process_time() - t
                if "".join(lit + texts[k] for lit, k in pieces) + p[pos:] == p:
                    rebuilt += 1
    return {"count": count, "copies": copies, "copies_z": copies_z, "refs_raw": refs_raw,
            "refs_z": refs_z, "rebuilt": rebuilt, "t_copy": t_copy, "t_ref": t_ref}


# ---- report ------------------------------------------------------------------------------------

def measure(agentvcr, db, quick):
    exchanges = load(agentvcr, db)
    traffic = b"".join(bodies(exchanges))
    steps = sum(1 for e in exchanges if e.conv is not None)
    longest = max((e.depth for e in exchanges if e.depth is not None), default=0) + 1
    results = [alone(exchanges, 1), alone(exchanges, LEVEL)]
    sizes = [(256, 1024, 4096)] + ([] if quick else [(1024, 4096, 16384)])
    results += [cdc(exchanges, *s) for s in sizes]
    results += [against_parent(exchanges, k, own) for own in (False, True) for k in (16, 64)]
    results += [against_parent(exchanges, k, chained_keyframes=True) for k in (16, 64)]
    results += [conversation_stream(exchanges, k) for k in (16, 64)]
    results.append(segmented_stream(exchanges, 16, 256))
    results.append(json_shared(exchanges))
    return {"db": os.path.basename(db), "exchanges": len(exchanges), "steps": steps,
            "longest": longest, "traffic": len(traffic), "zstd": zstd_cli(traffic),
            "results": results, "prompts": prompts(exchanges)}


def fmt(n):
    return f"{n / 1e6:.2f} MB" if n >= 1e6 else f"{n / 1e3:.1f} KB"


def page(runs):
    md = []
    for run in runs:
        md += [f"### {run['db']}: {run['exchanges']:,} exchanges, {run['steps']:,} steps, "
               f"episodes of {run['longest']} steps", "",
               f"Traffic (bodies) {fmt(run['traffic'])}; `zstd -19 --long=27` of it "
               f"{fmt(run['zstd'])}.", "",
               "| candidate | stored | ÷ zstd | per step | encode CPU | decode CPU (all) | "
               "worst bytes read for one body | |",
               "|---|---:|---:|---:|---:|---:|---:|---|"]
        for r in run["results"]:
            dec = "-" if r.decode_s != r.decode_s else f"{r.decode_s:.2f} s"
            worst = fmt(r.worst_read) if r.worst_read else "-"
            md.append(f"| {r.name} | {fmt(r.stored)} | {r.stored / run['zstd']:.1f}× | "
                      f"{r.stored / run['steps'] / 1e3:.2f} KB | {r.encode_s:.2f} s | {dec} | "
                      f"{worst} | {r.note} |")
        p = run["prompts"]
        md += ["", f"Internal steps' prompts ({p['count']:,}): as copies {fmt(p['copies'])} "
               f"({fmt(p['copies_z'])} compressed one by one, {p['t_copy']:.2f} s); as "
               f"references into the step's input memory and instruction {fmt(p['refs_raw'])} "
               f"({fmt(p['refs_z'])} compressed, {p['t_ref']:.2f} s); "
               f"{p['rebuilt']:,} of {p['count']:,} rebuilt exactly from their references.", ""]
    if len(runs) >= 2:
        a, b = sorted(runs, key=lambda run: run["longest"])[:2][0], \
            sorted(runs, key=lambda run: run["longest"])[-1]
        md += [f"Bytes per step, {a['longest']}-step to {b['longest']}-step episodes:", "",
               "| candidate | growth |", "|---|---:|"]
        md.append(f"| traffic | {(b['traffic'] / b['steps']) / (a['traffic'] / a['steps']):.2f}× |")
        md.append(f"| `zstd -19 --long=27` of the traffic | "
                  f"{(b['zstd'] / b['steps']) / (a['zstd'] / a['steps']):.2f}× |")
        for ra, rb in zip(a["results"], b["results"]):
            if ra.name == rb.name:
                md.append(f"| {ra.name} | "
                          f"{(rb.stored / b['steps']) / (ra.stored / a['steps']):.2f}× |")
        pa, pb = a["prompts"], b["prompts"]
        md.append(f"| prompts as copies (compressed) | "
                  f"{(pb['copies_z'] / b['steps']) / (pa['copies_z'] / a['steps']):.2f}× |")
        md.append(f"| prompts as references (compressed) | "
                  f"{(pb['refs_z'] / b['steps']) / (pa['refs_z'] / a['steps']):.2f}× |")
        md.append("")
    return "\n".join(md)


BEGIN, END = "<!-- figures: written by bench/full_history/candidates.py -->", "<!-- /figures -->"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agentvcr", required=True)
    parser.add_argument("--out", help="results page whose figures to replace (else stdout)")
    parser.add_argument("--quick", action="store_true", help="one chunk size only")
    parser.add_argument("db", nargs="+")
    args = parser.parse_args()
    runs = [measure(args.agentvcr, db, args.quick) for db in args.db]
    figures = page(runs)
    if not args.out:
        print(figures)
        return
    text = open(args.out).read() if os.path.exists(args.out) else f"{BEGIN}\n{END}\n"
    if BEGIN not in text or END not in text:
        sys.exit(f"{args.out}: no figure markers ({BEGIN} ... {END})")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with open(args.out, "w") as f:
        f.write(f"{head}{BEGIN}\n\nMeasured {stamp} on {os.cpu_count()} CPUs.\n\n{figures}\n{END}{tail}")


if __name__ == "__main__":
    main()
