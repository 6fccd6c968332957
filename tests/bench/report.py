#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a benchmark run (tests/bench/bench.sh) into tables, JSON and charts.

    report.py OUTDIR

Reads OUTDIR/raw/{config.sh,plan.txt,steps.tsv,results-<personality>.txt}
(the guest's result lines, see guest.sh) and writes OUTDIR/results.md,
OUTDIR/results.json, OUTDIR/raw/fio/<personality>/<cell>.json and, when
matplotlib is there, OUTDIR/*.png.  Never judges the numbers.
"""

import json
import os
import sys

PERS = ("raid456", "raid5j")
SECTOR = 512

WORKLOADS = {
    # name: (label, primary metric, kind)
    "rw4k-qd1": ("4 KiB random write qd1", "iops", "randwrite"),
    "rw4k-qd16": ("4 KiB random write qd16", "iops", "randwrite"),
    "sw64k": ("64 KiB sequential write qd16", "mbps", "seqwrite"),
    "sw1m": ("1 MiB sequential write qd4", "mbps", "seqwrite"),
    "fsw": ("full-stripe sequential write qd4", "mbps", "seqwrite"),
    "rr4k-qd16": ("4 KiB random read qd16", "iops", "randread"),
    "rr4k-deg": ("4 KiB random read qd16, 1 member failed", "iops", "degread"),
    "mix7030": ("4 KiB random 70% read / 30% write qd16", "iops", "mixed"),
    "swfsync": ("64 KiB buffered seq write, fsync every 1 MiB", "mbps", "seqwrite"),
    "hot4k-qd16": ("4 KiB random write qd16, hot set", "iops", "randwrite"),
    "sust4k-qd16": ("4 KiB random write qd16, sustained over the region", "iops",
                    "randwrite"),
}
HOTSET_WORKLOADS = ("hot4k-qd16", "sust4k-qd16")
MODES = {"none": "no journal", "wt": "journal write-through",
         "wb": "journal write-back"}
PROFILES = {
    "throttled": "throttled members (HDD-like), journal unthrottled",
    "unthrottled": "unthrottled (emulated CPU is the limit)",
}
STAT_FIELDS = ("reads", "rmerges", "rsect", "rticks", "writes", "wmerges",
               "wsect", "wticks", "inflight", "io_ticks", "queue_ticks",
               "discards", "dmerges", "dsect", "dticks", "flushes", "fticks")


def parse_config(path):
    cfg = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "=" not in line:
                continue
            k, v = line.split("=", 1)
            if len(v) >= 2 and v[0] == v[-1] == "'":
                v = v[1:-1]
            try:
                v = int(v)
            except ValueError:
                pass
            cfg[k] = v
    return cfg


def parse_plan(path):
    steps = []
    with open(path) as f:
        for line in f:
            parts = line.split(None, 2)
            if len(parts) < 2:
                continue
            steps.append((int(parts[0]), parts[1],
                          parts[2].strip() if len(parts) > 2 else ""))
    return steps


def parse_results(path):
    """Result lines of one VM -> {step: {...}}."""
    res = {}
    if not os.path.exists(path):
        return res
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            tag = line[:2]
            if tag not in ("I ", "T ", "S ", "K ", "P ", "F ", "E "):
                continue
            try:
                k = int(line[2:].split(" ", 1)[0])
            except ValueError:
                continue
            st = res.setdefault(k, {"I": {}, "T": {}, "S": {}, "K": {},
                                    "P": {}, "E": []})
            rest = line[2:].split(" ", 1)[1] if " " in line[2:] else ""
            if tag == "I ":
                for kv in rest.split():
                    if "=" in kv:
                        a, b = kv.split("=", 1)
                        st["I"][a] = b
            elif tag == "T ":
                ph, up = rest.split()[:2]
                st["T"][ph] = float(up)
            elif tag == "S ":
                w = rest.split()
                ph, role, dev = w[0], w[1], w[2]
                st["S"].setdefault(ph, {})[role] = (
                    dev, dict(zip(STAT_FIELDS, map(int, w[3:]))))
            elif tag == "K ":
                w = rest.split()
                d = {}
                for kv in w[2:]:
                    a, b = kv.split("=", 1)
                    try:
                        d[a] = int(b)
                    except ValueError:
                        d[a] = b
                st["K"].setdefault(w[0], {})[w[1]] = d
            elif tag == "P ":
                w = rest.split()
                st["P"][w[0]] = [int(x) for x in w[2:]]
            elif tag == "F ":
                # one fio run for the cells from step k on: job "s<step>"
                try:
                    fio = json.loads(rest)
                except ValueError as e:
                    st["E"].append("fio JSON unreadable: %s" % e)
                    continue
                for job in fio.get("jobs", []):
                    name = job.get("jobname", "")
                    if name[:1] == "s" and name[1:].isdigit():
                        js = res.setdefault(int(name[1:]), {
                            "I": {}, "T": {}, "S": {}, "K": {}, "P": {}, "E": []})
                        js["F"] = {"fio version": fio.get("fio version"),
                                   "jobs": [job],
                                   "disk_util": fio.get("disk_util")}
            elif tag == "E ":
                st["E"].append(rest)
    return res


def parse_steps(path):
    host = {}
    if not os.path.exists(path):
        return host
    with open(path) as f:
        next(f, None)
        for line in f:
            w = line.rstrip("\n").split("\t")
            if len(w) >= 5:
                host[(int(w[0]), w[1])] = {
                    "secs": round(float(w[3]) - float(w[2]), 2),
                    "loadavg": w[4]}
    return host


def pct(lat, key):
    p = (lat or {}).get("percentile") or {}
    for k, v in p.items():
        if abs(float(k) - key) < 1e-6:
            return v / 1e6     # ns -> ms
    return None


def div(a, b):
    return a / b if b else None


# ---- the I/O-bound model of a throttled member set ---------------------

def model(level, n, wl, cfg, member_max_kb, bs_kb, chunk_kb):
    """Upper bound of a workload when each member does X IOPS and B MB/s.

    Returns dict: limit (in the workload's primary unit), unit, formula,
    exp_rd_per_w / exp_wr_per_w (member I/Os per user write expected)."""
    X = cfg["throttle_iops"]
    B = cfg["throttle_mbps"]
    P = 2 if level == 6 else 1
    D = n - P
    kind = WORKLOADS[wl][2]
    # small write: md picks read-modify-write only when it reads less
    rmw_reads, rcw_reads = 1 + P, D - 1
    if rmw_reads < rcw_reads:
        w_reads, w_writes, policy = rmw_reads, 1 + P, "rmw"
        par_load, data_load = 2.0, 2.0 / D       # RAID4: per disk per write
    else:
        w_reads, w_writes, policy = rcw_reads, 1 + P, "rcw"
        par_load, data_load = 1.0, float(D) / D
    w_ios = w_reads + w_writes

    def small(read_frac):
        """IOPS limit for a random 4 KiB mix with read_frac reads."""
        wf = 1 - read_frac
        if level == 4:
            load = max(wf * par_load, read_frac / D + wf * data_load)
            return X / load, ("RAID4: busiest disk does %.2f I/Os per op "
                              "-> %d/%.2f" % (load, X, load))
        per_op = read_frac * 1 + wf * w_ios
        what = []
        if read_frac:
            what.append("%g%% reads x 1" % (read_frac * 100))
        if wf:
            what.append("%g%% writes x %d (%s: %d reads + %d writes)"
                        % (wf * 100, w_ios, policy, w_reads, w_writes))
        return n * X / per_op, ("%s = %.2f member I/Os per op; %d members x "
                                "%d IOPS / %.2f" % (" + ".join(what), per_op,
                                                    n, X, per_op))
    if kind == "randwrite":
        lim, f = small(0.0)
        return dict(limit=lim, unit="IOPS", formula=f, policy=policy,
                    exp_rd_per_w=w_reads, exp_wr_per_w=w_writes)
    if kind == "randread":
        lim, f = small(1.0)
        return dict(limit=lim, unit="IOPS", formula=f)
    if kind == "mixed":
        lim, f = small(0.7)
        return dict(limit=lim, unit="IOPS", formula=f, policy=policy,
                    exp_rd_per_w=w_reads, exp_wr_per_w=w_writes)
    if kind == "degread":
        # a read of the failed member's block reads D survivors (D-1 data + P)
        per_op = (n - 1.0) / n + float(D) / n
        lim = (n - 1) * X / per_op
        return dict(limit=lim, unit="IOPS", formula=(
            "(n-1)/n reads x 1 + 1/n reads x %d (rebuilt from %d data + P) = "
            "%.2f I/Os per op on %d survivors x %d IOPS" % (D, D - 1, per_op,
                                                           n - 1, X)))
    # sequential: each member writes its share of the stripe rows in
    # requests of at most its max_sectors_kb.  Direct writes: md can gather
    # full stripes (no reads).  Buffered writes with an fsync every 16
    # writes: each fsync forces out a batch of 16 x bs, which covers only
    # c < D chunks of a stripe row when smaller than the stripe: then every
    # row also needs min(rcw, rmw) reads.
    S = member_max_kb
    per_member = min(B, X * S * 1024 / 1e6)
    c = float(D)
    if wl == "swfsync":
        c = min(float(D), 16.0 * bs_kb / chunk_kb)
    if c >= D:
        return dict(limit=D * per_member, unit="MB/s", formula=(
            "full stripes: %d data members x min(%d MB/s, %d IOPS x %d KiB) = "
            "%d x %.0f MB/s" % (D, B, X, S, D, per_member)),
            exp_rd_per_w=0.0)
    reads = min(D - c, c + P)
    writes = c + P
    lim = n * per_member * c / (reads + writes)
    return dict(limit=lim, unit="MB/s", formula=(
        "fsync batch %d KiB covers %.2g of %d chunks per stripe row: per row "
        "%.2g reads + %.2g writes for %.2g data pages; %d members x %.0f MB/s x "
        "%.2g / %.2g" % (16 * bs_kb, c, D, reads, writes, c, n, per_member, c,
                        reads + writes)))


# ---- one cell of one personality ---------------------------------------

def cell_metrics(st, info):
    m = {"errors": list(st.get("E", []))}
    fio = st.get("F")
    if not fio or not fio.get("jobs"):
        m["errors"].append("no fio result")
        return m
    job = fio["jobs"][0]
    if job.get("error"):
        m["errors"].append("fio error %s" % job["error"])
    mx, rd, wr, sy = (job.get(x, {}) for x in ("mixed", "read", "write", "sync"))
    m["iops"] = mx.get("iops")
    m["mbps"] = mx.get("bw_bytes", 0) / 1e6
    m["lat_ms"] = {"p50": pct(mx.get("lat_ns"), 50), "p99": pct(mx.get("lat_ns"), 99),
                   "p99.9": pct(mx.get("lat_ns"), 99.9),
                   "mean": (mx.get("lat_ns") or {}).get("mean", 0) / 1e6}
    m["user"] = {"reads": rd.get("total_ios", 0), "writes": wr.get("total_ios", 0),
                 "read_bytes": rd.get("io_bytes", 0), "write_bytes": wr.get("io_bytes", 0),
                 "runtime_ms": mx.get("runtime")}
    if sy.get("total_ios"):
        m["fsync"] = {"count": sy["total_ios"], "p50_ms": pct(sy.get("lat_ns"), 50),
                      "p99_ms": pct(sy.get("lat_ns"), 99)}
    m["fio_cpu"] = {"usr": job.get("usr_cpu"), "sys": job.get("sys_cpu")}
    T = st.get("T", {})
    if "0" in T and "1" in T:
        m["wall_s"] = round(T["1"] - T["0"], 2)
    # Counter deltas: from before fio to after it (phase 1) or, for a
    # write-back cell, to after the drain (phase 2): everything the
    # cell's writes cost the members, whenever it was written.
    last = "2" if "2" in st.get("S", {}) else "1"
    S0 = st.get("S", {}).get("0", {})

    def stat_delta(ph):
        S1 = st.get("S", {}).get(ph, {})
        dev = {}
        for role in S0:
            if role in S1:
                a, b = S0[role][1], S1[role][1]
                dev[role] = {"dev": S0[role][0]}
                dev[role].update({k: b[k] - a[k] for k in a if k in b and k != "inflight"})
        return dev
    dev = stat_delta(last)
    m["devices"] = dev
    if last == "2":
        info = st.get("I", {})
        wb = {"drain_s": float(info["drain_s"]) if "drain_s" in info else None,
              "drain_ok": info.get("drain_ok") == "1"}
        d1 = stat_delta("1")
        mw = lambda d, key: sum(v.get(key, 0) for r, v in d.items()
                                if r[0] == "m" and r[1:].isdigit())
        wb["member_writes_during_fio"] = mw(d1, "writes")
        wb["member_write_bytes_during_fio"] = mw(d1, "wsect") * SECTOR
        wb["member_reads_during_fio"] = mw(d1, "reads")
        if "T" in st and "2" in st["T"] and "0" in st["T"]:
            wb["wall_with_drain_s"] = round(st["T"]["2"] - st["T"]["0"], 2)
        m["wb"] = wb
    mem = [r for r in dev if r[0] == "m" and r[1:].isdigit()]
    tot = lambda key, roles: sum(dev[r].get(key, 0) for r in roles)
    io = {"member_reads": tot("reads", mem), "member_writes": tot("writes", mem),
          "member_read_bytes": tot("rsect", mem) * SECTOR,
          "member_write_bytes": tot("wsect", mem) * SECTOR,
          "member_flushes": tot("flushes", mem),
          "journal_writes": tot("writes", ["j"]) if "j" in dev else 0,
          "journal_write_bytes": tot("wsect", ["j"]) * SECTOR if "j" in dev else 0,
          "journal_flushes": tot("flushes", ["j"]) if "j" in dev else 0,
          "md_reads": tot("reads", ["md"]), "md_writes": tot("writes", ["md"])}
    u = m["user"]
    ops = u["reads"] + u["writes"]
    io["member_reads_per_op"] = div(io["member_reads"], ops)
    io["member_writes_per_op"] = div(io["member_writes"], ops)
    if u["writes"]:
        # reads the members did beyond one per user read: pre-reads for
        # parity (read-before-write) per user write
        io["rbw_per_write"] = max(0, io["member_reads"] - u["reads"]) / u["writes"]
        io["member_writes_per_write"] = io["member_writes"] / u["writes"]
        io["journal_writes_per_write"] = io["journal_writes"] / u["writes"]
        io["write_amp"] = div(io["member_write_bytes"] + io["journal_write_bytes"],
                              u["write_bytes"])
        io["member_write_amp"] = div(io["member_write_bytes"], u["write_bytes"])
        io["journal_write_amp"] = div(io["journal_write_bytes"], u["write_bytes"])
        # bytes pre-read from the members per byte the user wrote
        io["preread_bytes_per_byte"] = max(
            0, io["member_read_bytes"] - u["read_bytes"]) / u["write_bytes"]
    if u["reads"]:
        io["member_reads_per_read"] = div(io["member_reads"], u["reads"])
        io["read_amp"] = div(io["member_read_bytes"], u["read_bytes"])
    io["avg_member_write_kib"] = div(io["member_write_bytes"] / 1024, io["member_writes"])
    io["avg_member_read_kib"] = div(io["member_read_bytes"] / 1024, io["member_reads"])
    io["avg_journal_write_kib"] = div(io["journal_write_bytes"] / 1024, io["journal_writes"])
    m["io"] = io
    # guest CPU (USER_HZ = 100 jiffies/s): all CPUs, not idle, not iowait
    P0, P1 = st.get("P", {}).get("0"), st.get("P", {}).get(last)
    if P0 and P1:
        d = [b - a for a, b in zip(P0, P1)]
        total = sum(d[:8])
        busy = total - d[3] - d[4]
        m["cpu"] = {"busy_s": busy / 100.0, "util_pct": div(100.0 * busy, total),
                    "ms_per_op": div(busy * 10.0, ops)}
    # raid5j's own counters
    K0, K1 = st.get("K", {}).get("0", {}), st.get("K", {}).get(last, {})
    for name in ("raid5j", "journal"):
        if name in K0 and name in K1:
            m[name] = {k: K1[name][k] - K0[name][k] for k in K0[name]
                       if isinstance(K0[name][k], int) and k in K1[name]
                       and k not in ("ring_sectors", "tail", "head", "used_sectors",
                                     "next_seq", "dirty_stripes",
                                     "wb_reserved_sectors", "evicted_stripes",
                                     "dirty_bytes", "log_high", "dirty_high",
                                     "dirty_low")}
    # gauges at the end of fio (before a drain)
    jend = st.get("K", {}).get("1", {}).get("journal", {})
    if "wb" in m and "dirty_stripes" in jend:
        m["wb"]["dirty_stripes_end"] = jend["dirty_stripes"]
        m["wb"]["used_sectors_end"] = jend.get("used_sectors")
        # write-back's gauges, where the module has them
        for k in ("evicted_stripes", "dirty_bytes"):
            if k in jend:
                m["wb"][k + "_end"] = jend[k]
    wb = m.get("wb")
    if wb:
        # throughput counting the drain: the cell's I/O over fio's run
        # time plus the time its dirty data took to reach the members
        t = (u["runtime_ms"] or 0) / 1000.0 + (wb.get("drain_s") or 0)
        wb["members_iops"] = div(ops, t)
        wb["members_mbps"] = div((u["read_bytes"] + u["write_bytes"]) / 1e6, t)
        wb["fio_share_of_member_writes"] = div(wb["member_write_bytes_during_fio"],
                                               io["member_write_bytes"])
    j = m.get("journal")
    if j:
        j["stripes_per_unit"] = div(j.get("stripes", 0), j.get("units", 0))
        j["data_pages_per_unit"] = div(j.get("data_pages", 0), j.get("units", 0))
        j["meta_bytes_per_unit"] = div(j.get("meta_bytes", 0), j.get("units", 0))
        j["units_per_write"] = div(j.get("units", 0), u["writes"])
    r = m.get("raid5j")
    if r and u["writes"]:
        r["rmw_per_write"] = r.get("rmw", 0) / u["writes"]
        r["rcw_per_write"] = r.get("rcw", 0) / u["writes"]
        r["stripes_per_write"] = r.get("stripes_handled", 0) / u["writes"]
        if "full_stripe_writes" in r:
            r["full_stripe_per_write"] = r["full_stripe_writes"] / u["writes"]
    if r and u["reads"]:
        r["aligned_per_read"] = r.get("aligned_reads", 0) / u["reads"]
    return m


def build(outdir):
    raw = os.path.join(outdir, "raw")
    cfg = parse_config(os.path.join(raw, "config.sh"))
    plan = parse_plan(os.path.join(raw, "plan.txt"))
    res = {p: parse_results(os.path.join(raw, "results-%s.txt" % p)) for p in PERS}
    host = parse_steps(os.path.join(raw, "steps.tsv"))
    cells, errors, arrays = [], [], []
    arr = None
    for k, what, args in plan:
        for p in PERS:
            for e in res[p].get(k, {}).get("E", []):
                errors.append("%s step %d (%s): %s" % (p, k, what, e))
        if what == "array":
            prof, _pre, level, n, mode, chunk, region = args.split()
            arr = dict(profile=prof, level=int(level), ndisks=int(n), mode=mode,
                       chunk_kb=int(chunk), region_mb=int(region), degraded=False,
                       info={p: res[p].get(k, {}).get("I", {}) for p in PERS})
            arrays.append(arr)
            continue
        if what == "fail":
            arr["degraded"] = True
            continue
        if what != "cell" or arr is None:
            continue
        cid, fioargs = args.split(None, 1)
        wl = cid.rsplit(".", 1)[1]
        bs_kb = 4
        for a in fioargs.split():
            if a.startswith("--bs="):
                v = a[5:].lower()
                bs_kb = int(v[:-1]) * (1024 if v.endswith("m") else 1)
        c = dict(id=cid, step=k, profile=arr["profile"], level=arr["level"],
                 ndisks=arr["ndisks"], mode=arr["mode"], chunk_kb=arr["chunk_kb"],
                 workload=wl, label=WORKLOADS[wl][0], metric=WORKLOADS[wl][1],
                 bs_kb=bs_kb, fio_args=fioargs, results={}, host={})
        if wl == "fsw":
            c["label"] = "full-stripe (%d KiB) sequential write qd4" % bs_kb
        if wl in HOTSET_WORKLOADS:
            for a in fioargs.split():
                if a.startswith("--size="):
                    c["label"] += " of %s" % a[7:].replace("M", " MiB")
                if a.startswith("--runtime=") and wl == "sust4k-qd16":
                    c["label"] += ", %s s" % a[10:]
        for p in PERS:
            st = res[p].get(k)
            c["results"][p] = cell_metrics(st, arr["info"][p]) if st else {
                "errors": ["step not run"]}
            c["host"][p] = host.get((k, p))
            if st and st.get("F"):
                d = os.path.join(raw, "fio", p)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, cid + ".json"), "w") as f:
                    json.dump(st["F"], f, indent=1)
        if arr["profile"] == "throttled":
            mk = int(arr["info"]["raid5j"].get("member_max_sectors_kb")
                     or arr["info"]["raid456"].get("member_max_sectors_kb") or 512)
            c["model"] = model(arr["level"], arr["ndisks"], wl, cfg, mk, bs_kb,
                               arr["chunk_kb"])
            lim = c["model"]["limit"]
            for p in PERS:
                r = c["results"][p]
                v = r.get(c["metric"])
                if "wb" in r:	# what the members did, not the journal
                    v = r["wb"].get("members_" + c["metric"])
                if v is not None and lim:
                    r["of_limit"] = v / lim
        a, b = (c["results"][p].get(c["metric"]) for p in PERS)
        c["ratio"] = b / a if a and b is not None else None
        la = [c["results"][p].get("lat_ms", {}).get("p99") for p in PERS]
        c["p99_ratio"] = la[1] / la[0] if la[0] and la[1] is not None else None
        cells.append(c)
    return dict(config=cfg, arrays=arrays, cells=merge_repeats(cells),
                errors=errors)


def merge_repeats(cells):
    """REPEAT > 1: one cell per id; each personality's numbers are those of
    its best run (by the primary metric: other load on the host only ever
    slows a run down); runs lists every run."""
    byid = {}
    for c in cells:
        byid.setdefault(c["id"], []).append(c)
    out = []
    for cid, lst in byid.items():
        c = dict(lst[0])
        c["steps"] = [x["step"] for x in lst]
        if len(lst) > 1:
            c["results"], c["host"], c["runs"] = {}, {}, {}
            for p in PERS:
                vals = [x["results"][p].get(x["metric"]) or 0 for x in lst]
                i = max(range(len(vals)), key=lambda j: vals[j])
                c["results"][p] = lst[i]["results"][p]
                c["host"][p] = lst[i]["host"][p]
                c["runs"][p] = vals
            c["run_ratios"] = [div(b, a) for a, b in zip(c["runs"][PERS[0]],
                                                         c["runs"][PERS[1]])]
            a, b = (c["results"][p].get(c["metric"]) for p in PERS)
            c["ratio"] = b / a if a and b is not None else None
            la = [c["results"][p].get("lat_ms", {}).get("p99") for p in PERS]
            c["p99_ratio"] = la[1] / la[0] if la[0] and la[1] is not None else None
        out.append(c)
    return out


# ---- Markdown ---------------------------------------------------------------

def f(v, nd=None):
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if nd is None:
        a = abs(v)
        nd = 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 0.1 else 3
    return "%.*f" % (nd, v)


def ratio_s(v):
    return "–" if v is None else "%.2f" % v


def loads(data):
    vals = []
    for c in data["cells"]:
        for p in PERS:
            h = c["host"].get(p)
            if h:
                vals.append(float(h["loadavg"].split()[0]))
    return (min(vals), max(vals)) if vals else None


def markdown(data):
    cfg = data["config"]
    L = []
    A = L.append
    A("# raid5j vs raid456: `%s`" % cfg.get("command", "make bench"))
    A("")
    A("Run %s on %s (%s host CPUs); guest kernel %s; raid5j %s." % (
        cfg.get("started"), cfg.get("host"), cfg.get("host_cpus"),
        cfg.get("kernel"), cfg.get("git")))
    lv = ", ".join("RAID%d" % a for a in sorted({c["level"] for c in data["cells"]}))
    A("Arrays: %s on %s members, chunk %s KiB, `--assume-clean` on discarded "
      "(zeroed) disks, fresh per mode; journal drive %s MiB; fio region %s MiB "
      "(prefilled); %s s per cell, time-based, no ramp; qemu TCG, 2 vCPUs, "
      "cache=unsafe." % (lv, cfg.get("disks"), cfg.get("chunk_kb"),
                         cfg.get("journal_size_mb"), cfg.get("region_mb"),
                         cfg.get("runtime_s")))
    A("Throttled profile: each member `throttling.iops-total=%s,"
      "throttling.bps-total=%s` (HDD-like), journal drive unthrottled."
      % (cfg.get("throttle_iops"), cfg.get("throttle_mbps", 0) * 1000000))
    if str(cfg.get("member_wbt", "default")) == "0":
        A("MEMBER_WBT=0: every member's writeback throttling off "
          "(`queue/wbt_lat_usec` 0), both personalities.")
    else:
        A("Members' writeback throttling (blk-wbt) at the guest kernel's "
          "default (MEMBER_WBT=default).")
    A("Both personalities ran in the same run, one VM each (booted once), "
      "taking turns cell by cell, the order swapped every cell.")
    lo = loads(data)
    if lo:
        A("Host load average (1 min) during the cells: %.1f to %.1f on %s CPUs "
          "(other VMs share the machine: single numbers are noisy, compare "
          "ratios)." % (lo[0], lo[1], cfg.get("host_cpus")))
    A("ratio = raid5j / raid456 (above 1: raid5j faster; for latency, above 1: "
      "raid5j slower).")
    if int(cfg.get("repeat", 1) or 1) > 1:
        A("Each cell ran %s times back to back (the personalities still taking "
          "turns); the tables give each personality's best run (other load on "
          "the host only slows runs down), the summary also the range of the "
          "runs and of the per-run ratios." % cfg["repeat"])
    A("")
    if data["errors"]:
        A("**Errors:**")
        A("")
        for e in data["errors"]:
            A("- %s" % e)
        A("")

    groups = {}
    for c in data["cells"]:
        groups.setdefault((c["profile"], c["level"], c["ndisks"]), []).append(c)

    # summary
    A("## Summary")
    A("")
    for (prof, level, n), cs in groups.items():
        A("### %s, RAID%d x %d" % (PROFILES.get(prof, prof), level, n))
        A("")
        modes = [m for m in MODES if any(c["mode"] == m for c in cs)]
        hdr = "| workload | unit |"
        sep = "| --- | --- |"
        for m in modes:
            hdr += " %s: raid456 | raid5j | ratio |" % MODES[m]
            sep += " ---: | ---: | ---: |"
        if prof == "throttled":
            hdr += " I/O-bound limit |"
            sep += " ---: |"
        A(hdr)
        A(sep)
        wls = []
        for c in cs:
            if c["workload"] not in wls:
                wls.append(c["workload"])
        for wl in wls:
            row = None
            lim = None
            for m in modes:
                c = next((x for x in cs if x["workload"] == wl and x["mode"] == m), None)
                if row is None:
                    lab = c["label"] if c else wl
                    unit = "IOPS" if (c and c["metric"] == "iops") else "MB/s"
                    row = "| %s | %s |" % (lab, unit)
                if c is None:
                    row += " – | – | – |"
                    continue
                v = [f(c["results"][p].get(c["metric"])) for p in PERS]
                rr = ratio_s(c["ratio"])
                if c.get("runs"):
                    v = ["%s (%s–%s)" % (v[i], f(min(c["runs"][p])), f(max(c["runs"][p])))
                         for i, p in enumerate(PERS)]
                    ok = [x for x in c["run_ratios"] if x is not None]
                    if ok:
                        rr += " (%s–%s)" % (ratio_s(min(ok)), ratio_s(max(ok)))
                row += " %s | %s | %s |" % (v[0], v[1], rr)
                if c.get("model"):
                    lim = c["model"]["limit"]
            if prof == "throttled":
                row += " %s |" % f(lim)
            A(row)
        A("")

    if any(c["workload"] in HOTSET_WORKLOADS for c in data["cells"]):
        hotset_section(data, A)
    if any(c["mode"] == "wb" for c in data["cells"]):
        writeback_section(data, groups, A)

    # details
    A("## Details")
    A("")
    A("Per cell and personality.  Latency: fio total latency (submit to "
      "completion) percentiles, ms.  limit: the I/O-bound limit the member "
      "throttle allows (formulas below); meas/limit: measured / limit (write-back: the \"on members\" rate, cell and drain).  "
      "I/O accounting from `/sys/block/*/stat` deltas over the cell: "
      "**mR/op** member reads per user I/O; **RbW/w** read-before-write: "
      "member reads beyond one per user read, per user write; **mW/w** member "
      "writes per user write; **jW/w** journal writes per user write; **WA** "
      "write amplification, bytes written to members + journal / user bytes; "
      "**pre-rd B/B** bytes pre-read from members per byte written by the "
      "user; **mW KiB**, **jW KiB** mean member / journal write size; "
      "**CPU ms/op** guest CPU time (both vCPUs, all of the guest) per user "
      "I/O.")
    A("")
    for (prof, level, n), cs in groups.items():
        for m in MODES:
            mc = [c for c in cs if c["mode"] == m]
            if not mc:
                continue
            A("### %s, RAID%d x %d, %s" % (prof, level, n, MODES[m]))
            A("")
            A("| workload | personality | IOPS | MB/s | p50 | p99 | p99.9 | limit | "
              "meas/limit | mR/op | RbW/w | pre-rd B/B | mW/w | jW/w | WA | mW KiB | "
              "jW KiB | CPU ms/op |")
            A("| --- | --- | " + "---: | " * 16)
            for c in mc:
                for p in PERS:
                    r = c["results"][p]
                    io = r.get("io", {})
                    lat = r.get("lat_ms", {})
                    lim = c.get("model", {}).get("limit")
                    lim_s = ("%s %s" % (f(lim), c["model"]["unit"])) if lim else "–"
                    of = r.get("of_limit")
                    err = " **(error)**" if r.get("errors") else ""
                    A("| %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                        c["label"] if p == PERS[0] else "", p, err,
                        f(r.get("iops")), f(r.get("mbps")), f(lat.get("p50")),
                        f(lat.get("p99")), f(lat.get("p99.9")),
                        lim_s if p == PERS[0] else "",
                        "%.0f%%" % (100 * of) if of is not None else "–",
                        f(io.get("member_reads_per_op")), f(io.get("rbw_per_write")),
                        f(io.get("preread_bytes_per_byte")),
                        f(io.get("member_writes_per_write")),
                        f(io.get("journal_writes_per_write")) if m != "none" else "–",
                        f(io.get("write_amp")), f(io.get("avg_member_write_kib")),
                        f(io.get("avg_journal_write_kib")) if m != "none" else "–",
                        f(r.get("cpu", {}).get("ms_per_op"))))
                A("| | ratio | %s | %s | %s | %s | %s | | | | | | | | | | | |" % (
                    ratio_s(c["ratio"]) if c["metric"] == "iops" else
                    ratio_s(div(c["results"]["raid5j"].get("iops"),
                                c["results"]["raid456"].get("iops"))),
                    ratio_s(div(c["results"]["raid5j"].get("mbps"),
                                c["results"]["raid456"].get("mbps"))),
                    *[ratio_s(div(c["results"]["raid5j"].get("lat_ms", {}).get(q),
                                  c["results"]["raid456"].get("lat_ms", {}).get(q)))
                      for q in ("p50", "p99", "p99.9")]))
            A("")

    # raid5j internals
    A("## raid5j counters per cell")
    A("")
    A("From `/sys/block/md0/md/raid5j_stats` and `journal_stats` deltas "
      "(raid456 has no such counters; its journal shows only in jW/w and WA "
      "above).  Per user write: rmw, rcw, full-stripe writes (stripes written "
      "without pre-reads), stripes handled; per user read: reads sent straight "
      "to a member (no stripe cache); journal: units "
      "written per user write, stripes / data pages / meta bytes per unit, "
      "reclaims, space waits; stripe_waits: waits for a free stripe.")
    A("")
    A("| profile | mode | workload | rmw/w | rcw/w | full-stripe/w | stripes/w | "
      "aligned rd/rd | units/w | stripes/unit | data pages/unit | meta B/unit | "
      "reclaims | space waits | stripe waits | fsync p50 ms (456 / 5j) |")
    A("| --- | --- | --- | " + "---: | " * 13)
    for c in data["cells"]:
        r = c["results"]["raid5j"]
        r5, j = r.get("raid5j", {}), r.get("journal") or {}
        fs = [c["results"][p].get("fsync", {}).get("p50_ms") for p in PERS]
        A("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["profile"], MODES[c["mode"]], c["label"], f(r5.get("rmw_per_write")),
            f(r5.get("rcw_per_write")), f(r5.get("full_stripe_per_write")),
            f(r5.get("stripes_per_write")), f(r5.get("aligned_per_read")),
            f(j.get("units_per_write")), f(j.get("stripes_per_unit")),
            f(j.get("data_pages_per_unit")), f(j.get("meta_bytes_per_unit")),
            f(j.get("reclaims")), f(j.get("space_waits")), f(r5.get("stripe_waits")),
            "%s / %s" % (f(fs[0]), f(fs[1])) if fs[0] or fs[1] else "–"))
    A("")

    # limits
    lims = {}
    for c in data["cells"]:
        if c.get("model"):
            lims.setdefault((c["level"], c["ndisks"], c["label"]), c["model"])
    if lims:
        A("## I/O-bound limits (throttled profile)")
        A("")
        A("Each member: %s IOPS and %s MB/s; the journal drive is not "
          "throttled, so the limits are those of the members alone.  md reads "
          "a small write's old data and parity (rmw) only when that reads "
          "fewer blocks than reading the rest of the stripe (rcw).  The "
          "journal's extra writes go to the unthrottled drive and do not "
          "lower these limits." % (cfg.get("throttle_iops"), cfg.get("throttle_mbps")))
        A("")
        A("| array | workload | limit | how |")
        A("| --- | --- | ---: | --- |")
        for (level, n, lab), mo in lims.items():
            A("| RAID%d x %d | %s | %s %s | %s |" % (level, n, lab, f(mo["limit"]),
                                                   mo["unit"], mo["formula"]))
        A("")
    A("Files: `results.json` (every number above and more, per cell and "
      "personality), `raw/fio/<personality>/<cell>.json` (fio output), "
      "`raw/results-<personality>.txt` (guest result lines), "
      "`raw/console-<personality>.log`, charts `*.png`.")
    return "\n".join(L) + "\n"


def hotset_section(data, A):
    """BENCH=writeback's numbers: raid5j wb beside raid456 wb and raid5j wt."""
    cfg = data["config"]
    A("## Write-back with a journal-sized cache")
    A("")
    A("Journal drive %s MiB.  **destaged**: user writes per second counting "
      "the time their data took to reach the members (write-back: fio's run "
      "plus the drain; write-through: fio's rate, already on the members); "
      "**ack**: fio's rate (acknowledged).  mR/w: member reads per user "
      "write (the cell and its drain); jB/B: journal bytes written per user "
      "byte; journal MB: written to the journal in the cell and its drain "
      "(above the journal's size: the cell was larger than the journal); "
      "end: raid5j's dirty stripes in RAM / evicted to the journal / dirty "
      "MiB when fio ended (n/a: the module has no such counter).  Issue "
      "16's targets (hot set): raid5j wb >= 2x raid456 wb and >= 3x raid5j "
      "wt destaged, p99 no worse than raid5j wt; sustained: raid5j wb not "
      "below raid5j wt." % cfg.get("journal_size_mb"))
    A("")
    keys = sorted({(c["profile"], c["level"], c["ndisks"], c["workload"])
                   for c in data["cells"] if c["workload"] in HOTSET_WORKLOADS},
                  key=lambda k: (k[0], k[1], k[2], HOTSET_WORKLOADS.index(k[3])))
    for prof, level, n, wl in keys:
        cs = {c["mode"]: c for c in data["cells"]
              if (c["profile"], c["level"], c["ndisks"], c["workload"]) ==
              (prof, level, n, wl)}
        label = next(iter(cs.values()))["label"]
        A("### %s, RAID%d x %d, %s" % (PROFILES.get(prof, prof), level, n, label))
        A("")
        A("| array | destaged IOPS | ack IOPS | p50 ms | p99 ms | drain s | "
          "mR/w | jB/B | journal MB | end: dirty / evicted / dirty MiB |")
        A("| --- | " + "---: | " * 9)
        dst = {}
        p99 = {}
        for p, mode in (("raid5j", "wb"), ("raid456", "wb"), ("raid5j", "wt"),
                        ("raid456", "wt")):
            c = cs.get(mode)
            if not c:
                continue
            r = c["results"][p]
            io, wb, u = r.get("io", {}), r.get("wb", {}), r.get("user", {})
            d = wb.get("members_iops") if mode == "wb" else r.get("iops")
            dst[(p, mode)] = d
            p99[(p, mode)] = r.get("lat_ms", {}).get("p99")
            end = "–"
            if mode == "wb" and p == "raid5j":
                db = wb.get("dirty_bytes_end")
                end = "%s / %s / %s" % (
                    f(wb.get("dirty_stripes_end")), f(wb.get("evicted_stripes_end")),
                    f(db / 1048576.0) if db is not None else "n/a")
            A("| %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                p, mode, f(d), f(r.get("iops")), f(r.get("lat_ms", {}).get("p50")),
                f(p99[(p, mode)]), f(wb.get("drain_s")) if mode == "wb" else "–",
                f(div(io.get("member_reads"), u.get("writes"))),
                f(io.get("journal_write_amp")),
                f(io.get("journal_write_bytes", 0) / 1e6) if "journal_write_bytes" in io else "–",
                end))
        A("")
        a, b, w = dst.get(("raid5j", "wb")), dst.get(("raid456", "wb")), dst.get(("raid5j", "wt"))
        line = []
        if a is not None and b:
            line.append("raid5j wb / raid456 wb %s" % ratio_s(a / b))
        if a is not None and w:
            line.append("raid5j wb / raid5j wt %s" % ratio_s(a / w))
        pa, pw = p99.get(("raid5j", "wb")), p99.get(("raid5j", "wt"))
        if pa is not None and pw is not None:
            line.append("p99 raid5j wb %s ms vs wt %s ms" % (f(pa), f(pw)))
        if line:
            A("Destaged: " + "; ".join(line) + ".")
            A("")


def writeback_section(data, groups, A):
    """Write-back cells: acknowledged numbers, the drain, member traffic."""
    A("## Journal write-back")
    A("")
    A("What the numbers mean.  In write-back a write is acknowledged once it "
      "is in the journal (an unthrottled drive here); the members are "
      "written later.  So fio's IOPS, MB/s and latencies (**acknowledged**) "
      "measure the journal and the cache in front of the members, and may "
      "exceed the members' I/O-bound limit while the cache absorbs the "
      "writes.  After each write-back cell the guest **drains** the cache "
      "(switch to write-through, which returns once every dirty stripe is "
      "on the members; then back to write-back), so every cell starts "
      "clean.  **drain s**: how long that took; **on members**: the cell's "
      "I/O divided by fio's run time plus the drain (what the members "
      "sustained for that work); **member traffic** (mR/w, mW/w, member MB "
      "per user MB) counts the cell and its drain together; **in fio**: the "
      "share of those member write bytes written while fio ran (the rest "
      "was destaged by the drain).  Member I/O of both personalities comes "
      "from `/sys/block/*/stat`; destage counters from raid5j's "
      "`journal_stats` (raid456 has none: n/a).")
    A("")
    for (prof, level, n), cs in groups.items():
        wc = [c for c in cs if c["mode"] == "wb"]
        if not wc:
            continue
        A("### %s, RAID%d x %d, journal write-back" % (PROFILES.get(prof, prof),
                                                       level, n))
        A("")
        A("The target: raid5j at least raid456 in throughput and p50 "
          "(acknowledged) in every cell; p99 beside it.  ratio = raid5j / "
          "raid456.")
        A("")
        A("| workload | unit | ack raid456 | ack raid5j | ratio | p50 ms 456 / 5j | "
          "p99 ms 456 / 5j | tput >= | p50 <= | drain s 456 / 5j | "
          "on members 456 | 5j | ratio |")
        A("| --- | --- | " + "---: | " * 11)
        for c in wc:
            r = [c["results"][p] for p in PERS]
            v = [x.get(c["metric"]) for x in r]
            lat = [x.get("lat_ms", {}) for x in r]
            wb = [x.get("wb", {}) for x in r]
            key = "members_iops" if c["metric"] == "iops" else "members_mbps"
            om = [w.get(key) for w in wb]
            ge = "–" if None in v else ("yes" if v[1] >= v[0] else "no")
            p50 = [x.get("p50") for x in lat]
            le = "–" if None in p50 else ("yes" if p50[1] <= p50[0] else "no")
            vs = [f(x) for x in v]
            if c.get("runs"):
                vs = ["%s (%s–%s)" % (vs[i], f(min(c["runs"][p])), f(max(c["runs"][p])))
                      for i, p in enumerate(PERS)]
            A("| %s | %s | %s | %s | %s | %s / %s | %s / %s | %s | %s | %s / %s | %s | %s | %s |" % (
                c["label"], "IOPS" if c["metric"] == "iops" else "MB/s",
                vs[0], vs[1], ratio_s(c["ratio"]), f(p50[0]), f(p50[1]),
                f(lat[0].get("p99")), f(lat[1].get("p99")), ge, le,
                f(wb[0].get("drain_s")), f(wb[1].get("drain_s")),
                f(om[0]), f(om[1]), ratio_s(div(om[1], om[0]) if None not in om else None)))
        A("")
        A("Member traffic of the cell and its drain, per user write, and "
          "raid5j's destage counters (deltas over the cell and its drain; "
          "dirty: dirty stripes when fio ended).")
        A("")
        A("| workload | personality | mR/w | mW/w | member MB / user MB | "
          "pre-rd B/B | in fio | cached writes | destaged full | partial | "
          "of which rmw | destage reads | reads saved | dirty |")
        A("| --- | --- | " + "---: | " * 12)
        for c in wc:
            for p in PERS:
                r = c["results"][p]
                io, wb, j = r.get("io", {}), r.get("wb", {}), r.get("journal") or {}
                u = r.get("user", {})
                mrw = div(io.get("member_reads"), u.get("writes"))
                share = wb.get("fio_share_of_member_writes")
                if p == "raid5j" and j:
                    ks = [f(j.get(k)) for k in ("cached_writes", "destaged_full",
                                                "destaged_partial", "destaged_rmw",
                                                "destage_reads", "destage_reads_saved")]
                    ks.append(f(wb.get("dirty_stripes_end")))
                else:
                    ks = ["n/a"] * 7
                A("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    c["label"] if p == PERS[0] else "", p, f(mrw),
                    f(io.get("member_writes_per_write")), f(io.get("member_write_amp")),
                    f(io.get("preread_bytes_per_byte")),
                    "%.0f%%" % (100 * share) if share is not None else "–",
                    " | ".join(ks)))
        A("")


# ---- charts ----------------------------------------------------------------

def charts(data, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: no matplotlib: no charts", file=sys.stderr)
        return []
    made = []
    cells = data["cells"]
    colors = {"raid456": "#4c72b0", "raid5j": "#dd8452"}
    groups = {}
    for c in cells:
        groups.setdefault((c["profile"], c["level"], c["ndisks"]), []).append(c)

    # 1. ratio per cell
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(cells) + 1.5))
    labels = ["%s RAID%d %s: %s" % (c["profile"], c["level"], c["mode"], c["workload"])
              for c in cells]
    vals = [c["ratio"] or 0 for c in cells]
    cols = ["#55a868" if v >= 0.9 else "#c44e52" for v in vals]
    ax.barh(range(len(cells)), vals, color=cols)
    ax.axvline(1.0, color="black", lw=1)
    ax.axvline(0.9, color="grey", lw=0.8, ls="--")
    ax.set_yticks(range(len(cells)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("raid5j / raid456 (IOPS or MB/s; dashed: 0.9)")
    ax.set_title("raid5j vs raid456, ratio per cell")
    for i, v in enumerate(vals):
        ax.text(v + 0.01, i, "%.2f" % v, va="center", fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "ratio.png"), dpi=110)
    plt.close(fig)
    made.append("ratio.png")

    # 2. absolute numbers per profile, one panel per workload
    for (prof, level, n), cs in groups.items():
        wls = []
        for c in cs:
            if c["workload"] not in wls:
                wls.append(c["workload"])
        cols_n = min(4, len(wls))
        rows_n = (len(wls) + cols_n - 1) // cols_n
        fig, axs = plt.subplots(rows_n, cols_n, figsize=(3.6 * cols_n, 3.1 * rows_n),
                                squeeze=False)
        for i, wl in enumerate(wls):
            ax = axs[i // cols_n][i % cols_n]
            wc = [c for c in cs if c["workload"] == wl]
            xs = range(len(wc))
            for j, p in enumerate(PERS):
                ax.bar([x + (j - 0.5) * 0.38 for x in xs],
                       [c["results"][p].get(c["metric"]) or 0 for c in wc],
                       width=0.38, color=colors[p], label=p)
            lim = [c.get("model", {}).get("limit") for c in wc]
            for x, l in zip(xs, lim):
                if l:
                    ax.hlines(l, x - 0.45, x + 0.45, colors="black", linestyles="--", lw=1)
            ax.set_xticks(list(xs))
            ax.set_xticklabels([MODES[c["mode"]].replace("journal ", "") for c in wc],
                               fontsize=8)
            ax.set_title(wc[0]["label"], fontsize=8)
            ax.set_ylabel("IOPS" if wc[0]["metric"] == "iops" else "MB/s", fontsize=8)
            ax.tick_params(labelsize=7)
            if i == 0:
                ax.legend(fontsize=7)
        for i in range(len(wls), rows_n * cols_n):
            axs[i // cols_n][i % cols_n].axis("off")
        fig.suptitle("%s, RAID%d x %d%s" % (PROFILES.get(prof, prof), level, n,
                                            " (dashed: I/O-bound limit)"
                                            if prof == "throttled" else ""), fontsize=10)
        fig.tight_layout()
        name = "perf-%s-r%d.png" % (prof, level)
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        made.append(name)

    # 3. latency p50/p99 per cell
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(cells) + 1.5))
    for j, p in enumerate(PERS):
        ys = [i + (j - 0.5) * 0.38 for i in range(len(cells))]
        p99 = [c["results"][p].get("lat_ms", {}).get("p99") or 0 for c in cells]
        p50 = [c["results"][p].get("lat_ms", {}).get("p50") or 0 for c in cells]
        ax.barh(ys, p99, height=0.38, color=colors[p], alpha=0.45)
        ax.barh(ys, p50, height=0.38, color=colors[p], label=p + " (p50 dark, p99 light)")
    ax.set_xscale("log")
    ax.set_yticks(range(len(cells)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("latency, ms (log)")
    ax.legend(fontsize=7)
    ax.set_title("latency p50 / p99 per cell")
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "latency.png"), dpi=110)
    plt.close(fig)
    made.append("latency.png")
    return made


def main():
    outdir = sys.argv[1]
    data = build(outdir)
    data["charts"] = charts(data, outdir)
    with open(os.path.join(outdir, "results.json"), "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=False)
    md = markdown(data)
    if data["charts"]:
        md += "\nCharts: " + ", ".join("![%s](%s)" % (c, c) for c in data["charts"]) + "\n"
    with open(os.path.join(outdir, "results.md"), "w") as fh:
        fh.write(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
