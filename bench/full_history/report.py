#!/usr/bin/env python3
"""bench/full-history's helpers (the rest is bench/benchtool.py's):

    report.py dbstat DB                      where the archive's bytes go, one JSON object
    report.py last-step DB STEPS             the exchange of the last step of the first
                                             conversation, checked to be STEPS deep
    report.py time-show AGENTVCR DB ID N     median ms of N `agentvcr show --exchange ID`
    report.py time-viewer VIEWER DB ID N TAB median ms of N `agentvcr-viewer --benchmark` showing
                                             the step of exchange ID on its details' tab TAB
    report.py write RUNS_JSONL META_JSON OUT_MD
                                             the results page
"""

import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time


def cmd_dbstat(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
    print(json.dumps({name: size for name, size in rows}))


def cmd_last_step(db, steps):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    row = con.execute(
        "SELECT s.exchange_id, s.depth FROM steps s WHERE s.conversation_id = "
        "(SELECT MIN(id) FROM conversations) ORDER BY s.depth DESC LIMIT 1").fetchone()
    if row is None:
        sys.exit(f"{db}: no conversation")
    if row[1] != int(steps) - 1:
        sys.exit(f"{db}: the first conversation is {row[1] + 1} steps deep, not {steps}: "
                 "threading lost the episode")
    print(row[0])


def cmd_time_show(agentvcr, db, exchange, runs):
    times = []
    for _ in range(int(runs)):
        start = time.perf_counter()
        subprocess.run([agentvcr, "show", "--db", db, "--exchange", exchange], check=True,
                       stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    print(f"{statistics.median(times):.1f} {min(times):.1f} {max(times):.1f}")


def cmd_time_viewer(viewer, db, exchange, runs, tab):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    step, conversation, session = con.execute(
        "SELECT id, conversation_id, session_id FROM steps WHERE exchange_id = ?",
        (int(exchange),)).fetchone()
    times = []
    for _ in range(int(runs)):
        out = subprocess.run(
            [viewer, "--benchmark", "--session", str(session), "--conversation",
             str(conversation), "--step", str(step), "--details", tab, db],
            check=True, capture_output=True, text=True,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}).stdout
        shown = [line for line in out.splitlines() if line.startswith("conversation shown:")]
        times.append(float(shown[0].split()[2]))
    print(f"{statistics.median(times):.0f} {min(times):.0f} {max(times):.0f}")


def mb(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def ratio(a, b):
    return f"{a / b:.1f}×" if b > 0 else "-"


def cmd_write(runs_jsonl, meta_json, out_md):
    with open(runs_jsonl) as f:
        runs = [json.loads(line) for line in f if line.strip()]
    with open(meta_json) as f:
        meta = json.load(f)
    md = ["# bench/full-history: latest run", "",
          f"- status: **{meta['status']}**",
          f"- date: {meta['date']}",
          f"- machine: {meta['nproc']} CPUs, {meta['cpu']}, {meta['kernel']}",
          f"- software: agentvcr {meta['agentvcr_rev']}, {meta['nginx']}",
          f"- command: `{meta['command']}`",
          f"- settings: {meta['settings']}", "",
          "| run | traffic (bodies) | archive | `zstd -19 --long=27` of the traffic | "
          "archive ÷ zstd | archive per step | recorder CPU per exchange | nginx CPU per "
          "exchange | recorder ÷ nginx | `show --exchange` of the last step | the viewer "
          "showing the last step: Step tab, Memory tab | fleet archive (PostgreSQL) | "
          "fleet ÷ archive |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        md.append(
            f"| {r['episodes']} × {r['steps']} | {mb(r['traffic'])} | {mb(r['archive'])} | "
            f"{mb(r['zstd'])} | **{r['archive'] / r['zstd']:.0f}×** | "
            f"{r['archive'] / r['total_steps'] / 1e3:.1f} KB | "
            f"{r['rec_cpu'] / r['exchanges'] * 1e3:.2f} ms | "
            f"{r['nginx_cpu'] / r['exchanges'] * 1e3:.2f} ms | "
            f"**{ratio(r['rec_cpu'], r['nginx_cpu'])}** | "
            f"{r['show_ms']} ms (step {r['steps']}) | {r.get('viewer_ms', '-')} ms, "
            f"{r.get('viewer_memory_ms', '-')} ms | "
            f"{mb(r['fleet']) if r.get('fleet') else '-'} | "
            f"{ratio(r['fleet'], r['archive']) if r.get('fleet') else '-'} |")
    by_steps = {r["steps"]: r for r in runs}
    md.append("")
    if 100 in by_steps and 300 in by_steps:
        a, b = by_steps[100], by_steps[300]
        per = [x["archive"] / x["total_steps"] for x in (a, b)]
        tper = [x["traffic"] / x["total_steps"] for x in (a, b)]
        md.append(f"Bytes per step, 100-step to 300-step episodes: archive {per[0] / 1e3:.1f} KB "
                  f"to {per[1] / 1e3:.1f} KB (**{per[1] / per[0]:.2f}×**), traffic "
                  f"{tper[0] / 1e3:.1f} KB to {tper[1] / 1e3:.1f} KB ({tper[1] / tper[0]:.2f}×).")
        md.append("")
    md.append("Where the archive's bytes go (`dbstat`, tables and indexes over 1% of the file):")
    md.append("")
    for r in runs:
        total = sum(r["dbstat"].values())
        parts = [f"`{name}` {mb(size)}" for name, size in
                 sorted(r["dbstat"].items(), key=lambda kv: -kv[1]) if size >= total / 100]
        md.append(f"- {r['episodes']} × {r['steps']}: " + ", ".join(parts))
    md.append("")
    md += [f"- {n}" for n in meta["notes"]]
    md += ["", "Traffic: the request and response bodies the caller sent and received, "
           "concatenated; the same bytes through agentvcr and through nginx (checked). Archive: "
           "the SQLite file after `agentvcr record` exited on SIGTERM and a "
           "`PRAGMA wal_checkpoint(TRUNCATE)` (its WAL included if any is left). Recorder CPU: "
           "user+system CPU of the whole `agentvcr record` process (every thread) from before "
           "the caller's first request until the index caught up; nginx CPU: master and workers "
           "over the same caller run. `show --exchange`: wall time of the command, median of "
           "the runs. The viewer: `agentvcr-viewer --benchmark` (offscreen, release build) "
           "selecting the conversation and its last step, its details on the Step tab (what the "
           "viewer opens on) or on the Memory tab (the side-by-side diff of two long memories): the "
           "\"conversation shown\" time it prints, from the window's first screen to that step "
           "painted, median of the runs. Fleet archive: the PostgreSQL database the archive was "
           "shipped into (`agentvcr ship`), after VACUUM FULL: every table, index and TOAST "
           "table. See bench/README.md, \"Full-history benchmark\"."]
    with open(out_md, "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    commands = {"dbstat": cmd_dbstat, "last-step": cmd_last_step, "time-show": cmd_time_show,
                "time-viewer": cmd_time_viewer, "write": cmd_write}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](*sys.argv[2:])
