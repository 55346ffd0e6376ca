"""Compares `hwprof info --json` with the corpus walker's summary.jsonl."""
import json
import subprocess
import sys

corpus, hwprof = sys.argv[1], sys.argv[2]

FLAG_KEYS = ["mispred", "predicted", "cycles", "in_tx", "abort", "type", "spec",
             "new_type", "priv", "from_zero"]

for line in open(f"{corpus}/summary.jsonl"):
    want = json.loads(line)
    name = "summary_" + want["file"].replace("/", "_")
    path = f"{corpus}/{want['file']}"
    p = subprocess.run([hwprof, "info", "--json", "-i", path], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL {name}: hwprof info failed: {p.stderr.strip()}")
        continue
    got = json.loads(p.stdout)
    problems = []

    def same(what, a, b):
        if a != b:
            problems.append(f"{what}: hwprof {a!r} != summary {b!r}")

    same("format", got["format"], want["format"])
    same("records", got["records"], want["records"])
    same("samples_total", got["samples_total"], want["samples_total"])
    per_attr = {str(i): e["samples"] for i, e in enumerate(got["events"]) if e["samples"]}
    same("samples_per_attr", per_attr, {k: v for k, v in want["samples_per_attr"].items() if v})
    if "brstack_depth_hist" in want:
        same("depth histogram", got["brstack_depth_hist"], want["brstack_depth_hist"])
        same("brstack entries", got["brstack_entries"], want["brstack_entries"])
        for k in FLAG_KEYS:
            if k in want.get("br_flags_nonzero", {}):
                same(f"nonzero {k}", got["br_flags_nonzero"][k], want["br_flags_nonzero"][k])
    if "sample_ip_user_kernel" in want:
        same("user/kernel samples", got["sample_ip_user_kernel"], want["sample_ip_user_kernel"])
    if "event_names" in want:
        same("event names", [e["name"] for e in got["events"]], want["event_names"])
    if "buildids" in want:
        # The walker lists at most 40 build-ids but counts them all.
        have = set(map(tuple, got["build_ids"]))
        same("build-id count", len(got["build_ids"]), want.get("n_buildids", len(want["buildids"])))
        missing = [b for b in map(tuple, want["buildids"]) if b not in have]
        same("build-ids missing", missing, [])
    quipper = path + ".buildids"
    try:
        # quipper also lists hit files whose build-id it does not know (blank
        # id): those are not in the header, so only ids it knows are compared.
        expected = sorted(t for t in (tuple(l.split(None, 1)) for l in
                                      open(quipper).read().splitlines()) if len(t) == 2)
        same("quipper build-ids", sorted((b[0], b[1]) for b in got["build_ids"]), expected)
    except FileNotFoundError:
        pass
    for k in ("hostname", "osrelease", "arch", "cpuid", "cpudesc"):
        if want.get(k):
            same(k, got.get(k), want[k])
    if want.get("version"):
        same("version", got.get("version"), want["version"])
    if "attrs" in want:
        same("attr count", len(got["events"]), len(want["attrs"]))
        for i, (g, w) in enumerate(zip(got["events"], want["attrs"])):
            same(f"attr{i} sample_type", g["sample_type"], w["sample_type"])
            same(f"attr{i} branch_sample_type", g["branch_sample_type"], w["branch_sample_type"])
            same(f"attr{i} size", g["attr_size"], w["attr_size"])
            same(f"attr{i} n_ids", g["n_ids"], w["n_ids"])
            same(f"attr{i} precise_ip", g["precise_ip"], w["precise_ip"])
    if problems:
        print(f"FAIL {name}: " + "; ".join(problems[:4]))
    else:
        print(f"PASS {name}")
