#!/usr/bin/env python3
"""Helpers for bench/run and bench/replay (standard library only). Subcommands:

  ports N                  print N distinct free TCP ports on 127.0.0.1
  check URL REQ RESP [S [PID]]
                           POST REQ to URL/v1/responses until it answers (S seconds at most,
                           less if process PID dies); require 200, application/json and a
                           body identical to RESP
  check-lines URL PATH CORPUS EXPECTED [S [PID]]
                           POST every line of CORPUS to URL+PATH over one keep-alive connection
                           (the first one retried for S seconds at most, less if process PID
                           dies); require 200, application/json and a body identical to the
                           line of EXPECTED; print the number of requests answered
  count-flows FILE         print the number of flows in a mitmdump -w file (tnetstring records)
  cpu PID...               print the summed utime+stime of the PIDs, in seconds
  rss PID...               print the summed VmHWM (peak RSS) of the PIDs, in KiB
  mem PID                  print VmRSS and VmHWM of PID, in KiB
  threads PID              print the CPU seconds of each thread of PID, in creation order
  children PID             print PID and its direct children (an nginx master and workers)
  count DB                 print the archive's exchange count, then "outcome status count" rows
  parse WRK_OUTPUT         print the BENCH_RESULT line of one wrk run as key=value pairs
  report RESULTS_TSV META_JSON OUT_MD
                           print the results table (markdown) and write OUT_MD; RESULTS_TSV rows
                           are "workload target conc wrk_output cpu_seconds"
  meta OUT_JSON            write the report's metadata (machine, versions) and the STATUS,
                           COMMAND, REV, SETTINGS and NOTES (a file) of the environment; with
                           MITMDUMP set (its path), mitmdump's version too
bench/replay only:
  static EXPECTED OUT      write to OUT the median-sized answer of EXPECTED (one per line)
                           that nginx can `return` (no ' and no $), print its size
  check-corpus URL CORPUS EXPECTED
                           POST every line of CORPUS to URL/v1/responses over one keep-alive
                           connection; require 200, application/json and the same JSON as the
                           line of EXPECTED; print "checked=N identical_bytes=M"
  status URL               print replay's GET URL/_agentvcr/replay counters as key=value pairs
  report-replay RESULTS_TSV META_JSON OUT_MD
                           print the replay-vs-nginx table (markdown) and write OUT_MD
"""
import datetime
import http.client
import json
import os
import platform
import shutil
import socket
import subprocess
import sqlite3
import sys
import time
import urllib.error
import urllib.request


def cmd_ports(n):
    socks = []
    try:
        for _ in range(int(n)):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        print(" ".join(str(s.getsockname()[1]) for s in socks))
    finally:
        for s in socks:
            s.close()


def _alive(pid):
    try:
        return _stat_fields(pid)[0] not in ("Z", "X")
    except OSError:
        return False


def cmd_check(url, req_path, resp_path, seconds="10", pid=None):
    body = open(req_path, "rb").read()
    expected = open(resp_path, "rb").read()
    deadline = time.monotonic() + float(seconds)
    last = None
    while time.monotonic() < deadline:
        request = urllib.request.Request(url + "/v1/responses", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=5) as r:
                got, ctype, status = r.read(), r.headers.get("Content-Type", ""), r.status
        except (urllib.error.URLError, ConnectionError, OSError) as e:
            last = e
            if pid is not None and not _alive(pid):
                sys.exit(f"check {url}: process {pid} died ({e})")
            time.sleep(0.1)
            continue
        if status != 200 or not ctype.startswith("application/json") or got != expected:
            sys.exit(f"check {url}: status {status}, content-type {ctype!r}, body "
                     f"{len(got)} bytes ({'identical' if got == expected else 'DIFFERENT'}) "
                     f"to the expected {len(expected)} bytes")
        return
    sys.exit(f"check {url}: no answer within {seconds}s ({last})")


def cmd_check_lines(url, path, corpus_path, expected_path, seconds="10", pid=None):
    requests, answers = _lines(corpus_path), _lines(expected_path)
    if len(requests) != len(answers) or not requests:
        sys.exit(f"{corpus_path} and {expected_path}: {len(requests)} requests for "
                 f"{len(answers)} answers")
    deadline = time.monotonic() + float(seconds)
    pid = pid or None
    conn = None
    answered = 0
    for n, (body, expected) in enumerate(zip(requests, answers), 1):
        while True:
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(*_split_url(url), timeout=10)
                conn.request("POST", path, body=body,
                             headers={"Content-Type": "application/json"})
                r = conn.getresponse()
                got, ctype = r.read(), r.getheader("Content-Type", "")
                break
            except (ConnectionError, OSError, http.client.HTTPException) as e:
                if conn is not None:
                    conn.close()
                conn = None
                # Only the first request may wait for the target to come up.
                if answered or time.monotonic() >= deadline:
                    sys.exit(f"check {url}{path}: request {n}: {e!r}")
                if pid is not None and not _alive(pid):
                    sys.exit(f"check {url}{path}: process {pid} died ({e!r})")
                time.sleep(0.1)
        answered += 1
        if r.status != 200 or not ctype.startswith("application/json") or got != expected:
            sys.exit(f"check {url}{path}: request {n} of {corpus_path}: status {r.status}, "
                     f"content-type {ctype!r}, body {len(got)} bytes "
                     f"({'identical' if got == expected else 'DIFFERENT'}) to the expected "
                     f"{len(expected)} bytes:\n  got      {got[:300]!r}\n  expected "
                     f"{expected[:300]!r}")
    conn.close()
    print(answered)


def cmd_count_flows(path):
    # mitmproxy's flow file: a sequence of tnetstrings, "LENGTH:PAYLOAD" then a type byte.
    count = 0
    with open(path, "rb") as f:
        while True:
            digits = b""
            while (c := f.read(1)) not in (b":", b""):
                if not c.isdigit() or len(digits) > 12:
                    sys.exit(f"{path}: not a tnetstring at offset {f.tell() - 1}")
                digits += c
            if not c:
                if digits:
                    sys.exit(f"{path}: truncated record at the end")
                break
            f.seek(int(digits), os.SEEK_CUR)
            if not f.read(1):
                sys.exit(f"{path}: truncated record at the end")
            count += 1
    print(count)


def _stat_fields(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rindex(")") + 2:].split()  # fields from 3 (state) on


def cmd_cpu(*pids):
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = _stat_fields(pid)
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    print(f"{total / tick:.3f}")


def cmd_rss(*pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
    print(total)


def cmd_mem(pid):
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key = line.split(":", 1)[0]
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(line.split()[1])
    print(values.get("VmRSS", 0), values.get("VmHWM", 0))


def cmd_threads(pid):
    tick = os.sysconf("SC_CLK_TCK")
    rows = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                comm = f.read().strip()
            fields = _stat_fields(f"{pid}/task/{tid}")
        except OSError:
            continue
        rows.append(((int(fields[11]) + int(fields[12])) / tick, comm, tid))
    rows.sort(key=lambda r: int(r[2]))  # creation order (tids grow)
    total = sum(r[0] for r in rows) or 1
    print(", ".join(f"#{i} {cpu:.1f}s ({100 * cpu / total:.0f}%)"
                    for i, (cpu, comm, tid) in enumerate(rows, 1)))


def cmd_children(pid):
    out = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if _stat_fields(entry)[1] == pid:
                    out.append(entry)
            except (OSError, ValueError):
                pass
    print(" ".join(out))


def cmd_count(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    print(con.execute("SELECT COUNT(*) FROM exchanges").fetchone()[0])
    for outcome, status, n in con.execute(
            "SELECT outcome, status, COUNT(*) FROM exchanges GROUP BY 1, 2 ORDER BY 3 DESC"):
        print(outcome, status, n)


def cmd_wait_indexed(db, timeout="600"):
    """Waits until agentvcr's index thread has caught up with what it captured (schema 8:
    exchanges.indexed); prints the backlog found and the seconds it took."""
    start = time.monotonic()
    backlog = None
    while True:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
        try:
            pending = con.execute("SELECT COUNT(*) FROM exchanges WHERE indexed = 0").fetchone()[0]
        finally:
            con.close()
        if backlog is None:
            backlog = pending
        waited = time.monotonic() - start
        if pending == 0:
            print(f"backlog={backlog} seconds={waited:.2f}")
            return
        if waited > float(timeout):
            raise SystemExit(f"{db}: {pending} exchanges still not indexed after {timeout}s")
        time.sleep(0.1)


def parse_wrk(path):
    with open(path) as f:
        for line in f:
            if line.startswith("BENCH_RESULT "):
                return {k: float(v) for k, v in (p.split("=") for p in line.split()[1:])}
    raise SystemExit(f"{path}: no BENCH_RESULT line (wrk failed?)")


def cmd_parse(path):
    print(" ".join(f"{k}={int(v) if v == int(v) else v}" for k, v in parse_wrk(path).items()))


def fmt_us(us):
    if us is None:
        return "n/a"
    if abs(us) >= 1000:
        return f"{us / 1000:.2f} ms"
    return f"{us:.0f} µs"


def fmt_added(us):
    return "—" if us is None else ("+" if us >= 0 else "−") + fmt_us(abs(us))


def read_runs(tsv):
    """One row per measured run: workload (None in 4-column rows), target, connections, wrk's
    figures, req/s, errors, CPU/req."""
    rows = []
    with open(tsv) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            workload = fields.pop(0) if len(fields) == 5 else None
            target, conc, wrk_out, cpu_s = fields
            r = parse_wrk(wrk_out)
            r["workload"], r["target"], r["conc"] = workload, target, int(conc)
            r["rps"] = r["requests"] / (r["duration_us"] / 1e6)
            r["errors"] = int(r["connect"] + r["read"] + r["write"] + r["timeout"] + r["status"])
            r["cpu_us_per_req"] = (float(cpu_s) * 1e6 / r["requests"]
                                   if cpu_s != "-" and r["requests"] else None)
            rows.append(r)
    return rows


def _ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def cmd_report(tsv, meta_path, out_md):
    meta = json.load(open(meta_path))
    rows = read_runs(tsv)
    by = {(r["workload"], r["target"], r["conc"]): r for r in rows}
    with_workload = any(r["workload"] for r in rows)
    wl_head, wl_rule = ("| workload ", "|---") if with_workload else ("", "")

    lines = [wl_head + "| target | conc | req/s | p50 | p99 | added p50 | added p99 | "
             "proxy CPU/req | errors |",
             wl_rule + "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        d = by.get((r["workload"], "direct", r["conc"]))
        add50 = add99 = None
        if d is not None and r["target"] != "direct":
            add50, add99 = r["p50_us"] - d["p50_us"], r["p99_us"] - d["p99_us"]
        err = str(r["errors"])
        if r["errors"]:
            err = (f"{r['errors']} (non-2xx {int(r['status'])}, connect {int(r['connect'])}, "
                   f"read {int(r['read'])}, write {int(r['write'])}, "
                   f"timeout {int(r['timeout'])})")
        wl = f"| {r['workload']} " if with_workload else ""
        lines.append(f"{wl}| {r['target']} | {r['conc']} | {r['rps']:,.0f} | "
                     f"{fmt_us(r['p50_us'])} | {fmt_us(r['p99_us'])} | {fmt_added(add50)} | "
                     f"{fmt_added(add99)} | {fmt_us(r['cpu_us_per_req'])} | {err} |")

    # agentvcr against each other relay that ran: nginx (no recording), mitmdump (recording).
    targets = {r["target"] for r in rows}
    others = [t for t in ("nginx", "mitmdump") if t in targets and "agentvcr" in targets]
    ratio_lines = []
    if others:
        head, rule = wl_head + "| conc |", wl_rule + "|---:|"
        for o in others:
            head += f" req/s agentvcr/{o} |"
            rule += "---:|"
            if o == "nginx":
                head += f" added p50 agentvcr/{o} |"
                rule += "---:|"
            head += f" CPU/req agentvcr/{o} |"
            rule += "---:|"
        ratio_lines = [head, rule]
        groups = []
        for r in rows:
            if (r["workload"], r["conc"]) not in groups:
                groups.append((r["workload"], r["conc"]))
        for w, c in groups:
            a, d = by.get((w, "agentvcr", c)), by.get((w, "direct", c))
            if not a:
                continue
            line = (f"| {w} " if with_workload else "") + f"| {c} |"
            for o in others:
                n = by.get((w, o, c))
                if not n:
                    line += " — |" + (" — |" if o == "nginx" else "") + " — |"
                    continue
                line += f" {_ratio(a['rps'], n['rps'])} |"
                if o == "nginx":
                    added = "n/a"
                    if d is not None:
                        a50, n50 = a["p50_us"] - d["p50_us"], n["p50_us"] - d["p50_us"]
                        added = (f"{a50 / n50:.2f}" if n50 > 0
                                 else f"n/a (nginx adds {fmt_us(n50)})")
                    line += f" {added} |"
                line += f" {_ratio(a['cpu_us_per_req'], n['cpu_us_per_req'])} |"
            ratio_lines.append(line)
        if len(ratio_lines) == 2:
            ratio_lines = []

    table = "\n".join(lines)
    ratios = "\n".join(ratio_lines)
    print(table)
    if ratios:
        print()
        print(ratios)
    print()
    for note in meta["notes"]:
        print(note)

    md = [f"# agentvcr benchmark: latest run",
          "",
          f"- status: **{meta['status']}**",
          f"- date: {meta['date']}",
          f"- machine: {meta['nproc']} CPUs, {meta['cpu']}, {meta['kernel']}",
          f"- software: agentvcr {meta['agentvcr_rev']}, {meta['nginx']}, {meta['wrk']}"
          + (f", {meta['mitmdump']}" if meta.get("mitmdump") else ""),
          f"- command: `{meta['command']}`",
          f"- settings: {meta['settings']}",
          "",
          table, ""]
    if ratios:
        md += [ratios, ""]
    md += [f"- {n}" for n in meta["notes"]]
    md += ["", "Latencies are wrk's (client-side, per request); added = target minus direct at "
           "the same workload and concurrency. Proxy CPU/req = user+system CPU of the proxy "
           "process(es) during the run divided by completed requests. See bench/README.md."]
    os.makedirs(os.path.dirname(out_md), exist_ok=True)
    with open(out_md, "w") as f:
        f.write("\n".join(md) + "\n")


def cmd_meta(out_json):
    def first_line(*cmd):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True)
            return (r.stdout + r.stderr).strip().splitlines()[0]
        except Exception:
            return "unknown"
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    with open(os.environ["NOTES"]) as f:
        notes = [line for line in f.read().splitlines() if line]
    with open(out_json, "w") as f:
        json.dump({
            "status": os.environ["STATUS"],
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "nproc": os.cpu_count(), "cpu": cpu, "kernel": "Linux " + platform.release(),
            "agentvcr_rev": os.environ["REV"],
            "nginx": first_line(nginx, "-v").replace("nginx version: ", ""),
            "wrk": first_line("wrk", "-v").split(" [")[0],
            "mitmdump": (first_line(os.environ["MITMDUMP"], "--version").replace(":", "")
                         if os.environ.get("MITMDUMP") else ""),
            "command": os.environ["COMMAND"], "settings": os.environ["SETTINGS"],
            "notes": notes,
        }, f)


# ---- bench/replay -----------------------------------------------------------------------------

def _lines(path):
    with open(path, "rb") as f:
        return [line.rstrip(b"\n") for line in f if line.strip()]


def cmd_static(expected_path, out_path):
    usable = sorted((len(line), line) for line in _lines(expected_path)
                    if b"'" not in line and b"$" not in line)
    if not usable:
        sys.exit(f"{expected_path}: no answer nginx can return")
    size, body = usable[len(usable) // 2]
    with open(out_path, "wb") as f:
        f.write(body)
    print(size)


def _split_url(url):
    host_port = url.split("://", 1)[1].rstrip("/")
    host, port = host_port.rsplit(":", 1)
    return host, int(port)


def cmd_check_corpus(url, corpus_path, expected_path, path="/v1/responses"):
    requests, answers = _lines(corpus_path), _lines(expected_path)
    if len(requests) != len(answers) or not requests:
        sys.exit(f"{corpus_path} and {expected_path}: {len(requests)} requests for "
                 f"{len(answers)} answers")
    conn = http.client.HTTPConnection(*_split_url(url), timeout=10)
    identical = 0
    for n, (body, expected) in enumerate(zip(requests, answers), 1):
        conn.request("POST", path, body=body,
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        got, ctype = r.read(), r.getheader("Content-Type", "")
        if r.status != 200 or not ctype.startswith("application/json"):
            sys.exit(f"check-corpus {url}: request {n} got status {r.status}, content-type "
                     f"{ctype!r}: {got[:300]!r}")
        if got == expected:
            identical += 1
        elif json.loads(got) != json.loads(expected):
            sys.exit(f"check-corpus {url}: request {n} answered differently from the "
                     f"re-stamped recording:\n  got      {got[:400]!r}\n  expected "
                     f"{expected[:400]!r}")
    conn.close()
    print(f"checked={len(requests)} identical_bytes={identical}")


def _flatten(value, prefix=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}{k}.")
    else:
        yield prefix[:-1], value


def cmd_status(url):
    with urllib.request.urlopen(url + "/_agentvcr/replay", timeout=10) as r:
        body = json.load(r)
    print(" ".join(f"{k}={v}" for k, v in _flatten(body)))


def cmd_report_replay(tsv, meta_path, out_md):
    meta = json.load(open(meta_path))
    rows = read_runs(tsv)
    by = {(r["workload"], r["target"], r["conc"]): r for r in rows}

    lines = ["| workload | target | conc | req/s | p50 | p99 | server CPU/req | errors |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        err = str(r["errors"])
        if r["errors"]:
            err = (f"{r['errors']} (non-2xx {int(r['status'])}, connect {int(r['connect'])}, "
                   f"read {int(r['read'])}, write {int(r['write'])}, "
                   f"timeout {int(r['timeout'])})")
        lines.append(f"| {r['workload']} | {r['target']} | {r['conc']} | {r['rps']:,.0f} | "
                     f"{fmt_us(r['p50_us'])} | "
                     f"{fmt_us(r['p99_us'])} | {fmt_us(r['cpu_us_per_req'])} | {err} |")

    def ratio(a, b):
        return f"{a / b:.2f}" if a is not None and b else "n/a"

    # Each replay against nginx, then the memo's own effect (replay against replay --no-memo).
    ratio_lines = ["| workload | conc | compared | req/s | p50 | p99 | CPU/req |",
                   "|---|---:|---|---:|---:|---:|---:|"]
    pairs = [("replay", "nginx"), ("replay-nomemo", "nginx"), ("replay", "replay-nomemo")]
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    for w in workloads:
        for c in sorted({r["conc"] for r in rows if r["workload"] == w}):
            for a_name, b_name in pairs:
                a, n = by.get((w, a_name, c)), by.get((w, b_name, c))
                if a and n:
                    ratio_lines.append(
                        f"| {w} | {c} | {a_name} / {b_name} | {ratio(a['rps'], n['rps'])} | "
                        f"{ratio(a['p50_us'], n['p50_us'])} | "
                        f"{ratio(a['p99_us'], n['p99_us'])} | "
                        f"{ratio(a['cpu_us_per_req'], n['cpu_us_per_req'])} |")
    table = "\n".join(lines)
    ratios = "\n".join(ratio_lines) if len(ratio_lines) > 2 else ""
    print(table)
    if ratios:
        print()
        print(ratios)
    print()
    for note in meta["notes"]:
        print(note)

    md = ["# agentvcr replay benchmark: latest run",
          "",
          f"- status: **{meta['status']}**",
          f"- date: {meta['date']}",
          f"- machine: {meta['nproc']} CPUs, {meta['cpu']}, {meta['kernel']}",
          f"- software: agentvcr {meta['agentvcr_rev']}, {meta['nginx']}, {meta['wrk']}",
          f"- command: `{meta['command']}`",
          f"- settings: {meta['settings']}",
          "",
          table, ""]
    if ratios:
        md += [ratios, ""]
    md += [f"- {n}" for n in meta["notes"]]
    md += ["", "Latencies are wrk's (client-side, per request). Server CPU/req = user+system CPU "
           "of the server process(es) (agentvcr replay; nginx master and workers) during the "
           "measured run divided by completed requests. All targets get the same corpus through "
           "the same wrk script. See bench/README.md, \"Replay benchmark\"."]
    os.makedirs(os.path.dirname(out_md), exist_ok=True)
    with open(out_md, "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    commands = {"ports": cmd_ports, "check": cmd_check, "cpu": cmd_cpu, "rss": cmd_rss,
                "mem": cmd_mem, "threads": cmd_threads, "children": cmd_children,
                "count": cmd_count, "wait-indexed": cmd_wait_indexed, "parse": cmd_parse, "report": cmd_report, "meta": cmd_meta,
                "check-lines": cmd_check_lines, "count-flows": cmd_count_flows,
                "static": cmd_static, "check-corpus": cmd_check_corpus, "status": cmd_status,
                "report-replay": cmd_report_replay}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](*sys.argv[2:])
