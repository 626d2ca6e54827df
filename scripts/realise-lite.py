#!/usr/bin/env python3
"""Tooling for the hand-realised edition of Bemula-Lite (data/realised/lite/).

The plan of each Lite instance (profile, facts, sessions with their dates, scenarios and
turn counts, which turn discloses which fact, the requests' positions, types, styles and
targets, and the questions) is the generator's (`bemula generate --lite`, seed 42, v2,
as it stood until 2026-12-06; the shipped files keep it and `plan` copies it from them).
The dialogue is written by hand, a session per file; this script never writes dialogue
text. It only moves hand-written text into the plan and checks it.

  scripts/realise-lite.py plan                 copy the plan of record into target/realise/plan
  scripts/realise-lite.py worksheet ID         write data/realised/lite/work/ID/WORKSHEET.md
  scripts/realise-lite.py assemble ID [ID…]    build data/realised/lite/ID.json from the
                                               hand-written work/ID/sNN.json and
                                               work/ID/fillers.json, and check it
  scripts/realise-lite.py check ID [ID…]       the checks alone
  scripts/realise-lite.py extract ID [ID…]     write work/ID/ (worksheet, sNN.json,
                                               fillers.json) back from the shipped
                                               data/realised/lite/ID.json, to edit it

The shipped instance files are the data of record; work/ is a scratch folder (ignored
by git) made by `worksheet` or `extract` and read by `assemble`.

Work files:
  work/ID/s01.json      [{"user": "...", "assistant": "..."}, ...]  exactly the session's
                        turn count, in order (the request exchange at its position)
  work/ID/fillers.json  {"r1": {"user": "...", "assistant": "..."}, ...}
"""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "target" / "realise" / "plan"
OUT = ROOT / "data" / "realised" / "lite"
WORK = OUT / "work"

STYLE_NOTES = {
    "direct": "a plain, direct request (\"Please delete ...\", \"Can you forget ...\")",
    "polite": "a polite, softened request (\"Would you mind forgetting ...\", \"Sorry to bother you, but could you ...\")",
    "imperative": "a blunt command (\"Forget ... Don't keep it.\")",
    "indirect": "an indirect request that still says plainly it should go (\"I'd rather you didn't hold on to ... so please drop it\")",
    "implicit": "an implicit framing (the user has moved on, regrets sharing, it is nobody's business) that still states the wish that it is not kept (\"I don't want any of that retained\")",
}

TYPE_NOTES = {
    "F1": "F1 factual: forget this one fact.",
    "F2": "F2 compositional: forget these facts together (name each of them).",
    "F3": "F3 semantic: forget the whole category (name the category, not each fact; every listed target is in it).",
    "F4": "F4 inferential: forget a conclusion that was never said, only inferable. Describe it as what the assistant might have worked out or inferred (never as something the user said), and NEVER write its value anywhere.",
    "F5": "F5 temporal: forget everything from a time period (name the period; the targets are the facts dated in it).",
    "F6": "F6 replacement: the old value is no longer true; replace it with the new value (say the new value; say the old one should go).",
}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def plan_of(iid):
    path = PLAN / f"{iid}.json"
    if not path.exists():
        sys.exit(f"{path}: no plan; run `scripts/realise-lite.py plan` first")
    return load(path)


def cmd_plan():
    """The plan of record is the shipped instances' own (generator v2's Lite plan as it
    stood until 2026-12-06, pinned by a test); the generator's wording has changed
    since, so the plan is copied from them, not generated again."""
    PLAN.mkdir(parents=True, exist_ok=True)
    for src in sorted(OUT.glob("*.json")):
        (PLAN / src.name).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")


def facts_by_id(inst):
    p = inst["profile"]
    return {f["id"]: f for f in p["facts"] + p.get("derived_facts", [])}


def order(inst):
    """(session index, turn index) of every session id's turns, for comparisons."""
    return {s["id"]: i for i, s in enumerate(inst["sessions"])}


def worksheet(iid):
    inst = plan_of(iid)
    facts = facts_by_id(inst)
    p = inst["profile"]
    lines = [f"# Worksheet for {iid} ({inst['tier']})", ""]
    lines += [
        "Write every session as a real conversation between this person and an AI assistant.",
        "Each `sNN.json` is a JSON list of exactly the session's number of turns,",
        "`{\"user\": ..., \"assistant\": ...}`; the assistant actually answers what was asked.",
        "A turn marked MENTIONS must state that fact with its value written exactly as given",
        "(case does not matter), for a reason that fits the conversation. Other turns may",
        "bring up facts of this person again where it is natural, except where a VALUE IS",
        "BANNED. Everything the person says must fit the persona below.",
        "",
        "## Persona",
        "",
        f"- name: {p['name']}",
    ]
    for k, v in sorted(p.get("attributes", {}).items()):
        lines.append(f"- {k}: {v}")
    lines += ["", "## Facts (atomic: may be stated)", ""]
    for f in p["facts"]:
        ts = f" (dated {f['timestamp']})" if f.get("timestamp") else ""
        lines.append(f"- {f['id']} [{f['category']}] {f['predicate']}: `{f['value']}`{ts} — \"{f['statement']}\"")
    if p.get("derived_facts"):
        lines += ["", "## Derived facts (NEVER state these values; they follow from the sources)", ""]
        for f in p["derived_facts"]:
            lines.append(f"- {f['id']} {f['predicate']}: `{f['value']}` from {', '.join(f['sources'])}")
    lines += ["", "## Requests", ""]
    sessions = order(inst)
    for r in inst["requests"]:
        pos = r["position"]
        lines.append(f"### {r['id']}: {r['type']} {r['style']} at {pos['session']} turn {pos['turn']} (0-based)")
        lines.append("")
        lines.append(f"- type: {TYPE_NOTES[r['type']]}")
        lines.append(f"- style: {STYLE_NOTES[r['style']]}")
        for t in r["targets"]:
            f = facts[t]
            ts = f" (dated {f['timestamp']})" if f.get("timestamp") else ""
            lines.append(f"- target {t}: {f['predicate']} = `{f['value']}`{ts} [{f['category']}]")
        if r["type"] == "F3":
            cats = sorted({facts[t]["category"] for t in r["targets"]})
            lines.append(f"- category to name: {', '.join(cats)}")
        if r["type"] == "F5":
            stamps = sorted({facts[t]["timestamp"] for t in r["targets"]})
            lines.append(f"- period to name: the time of {', '.join(stamps)}")
        if r["type"] == "F6":
            new = [q["gold"] for q in inst["questions"]
                   if q["suite"] == "efficacy" and q["request"] == r["id"]]
            lines.append(f"- NEW value to state in the request: `{new[0]}`")
        banned = [facts[t]["value"] for t in r["targets"]]
        lines.append(
            "- the user's request turn must say plainly that it should be deleted/forgotten/not kept"
            + (" (it must not contain the value)" if r["type"] == "F4" else " (it may name the value)")
        )
        lines.append(
            "- the assistant's reply confirms briefly, in its own words, WITHOUT the value(s): "
            + ", ".join(f"`{v}`" for v in banned)
        )
        lines.append(
            f"- VALUE IS BANNED after the request: {', '.join(f'`{v}`' for v in banned)} must not appear "
            f"(not even inside another word) in any later turn of {pos['session']} or any later session, "
            "nor in the filler"
        )
        lines.append(
            f"- fillers.json \"{r['id']}\": a neutral exchange of about the same length that fits "
            f"{pos['session']} at turn {pos['turn']} in place of the request (the control version); no "
            "request, no banned value"
        )
        lines.append("")
    requests_at = {(r["position"]["session"], r["position"]["turn"]): r for r in inst["requests"]}
    lines += ["## Sessions", ""]
    for s in inst["sessions"]:
        lines.append(f"### {s['id']} — {s['date']} — {len(s['turns'])} turns")
        lines.append("")
        lines.append(f"Scenario: {s['scenario']}")
        lines.append("")
        for i, t in enumerate(s["turns"]):
            notes = []
            for m in t.get("mentions", []):
                f = facts[m]
                notes.append(f"MENTIONS {m}: {f['predicate']} = `{f['value']}`")
            r = requests_at.get((s["id"], i))
            if r:
                notes.append(f"REQUEST {r['id']} ({r['type']} {r['style']}), see above")
            if notes:
                lines.append(f"- turn {i}: " + "; ".join(notes))
        lines.append("")
    WORK.joinpath(iid).mkdir(parents=True, exist_ok=True)
    path = WORK / iid / "WORKSHEET.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(path.relative_to(ROOT))


def norm(text):
    return re.sub(r"\s+", " ", text.lower())


def value_forms(value):
    """The value as written, and without a leading article ("a small bungalow")."""
    v = norm(value).strip()
    forms = {v}
    for art in ("a ", "an ", "the ", "my "):
        if v.startswith(art):
            forms.add(v[len(art):])
    return forms


def says(text, value):
    t = norm(text)
    return any(form in t for form in value_forms(value))


def build(iid):
    """The assembled instance and a list of problems (empty when it is sound)."""
    inst = plan_of(iid)
    facts = facts_by_id(inst)
    problems = []
    work = WORK / iid
    sessions = []
    for s in inst["sessions"]:
        path = work / f"{s['id']}.json"
        if not path.exists():
            problems.append(f"{path.relative_to(ROOT)}: missing")
            continue
        try:
            turns = load(path)
        except json.JSONDecodeError as e:
            problems.append(f"{path.relative_to(ROOT)}: not JSON: {e}")
            continue
        if not isinstance(turns, list) or len(turns) != len(s["turns"]):
            got = len(turns) if isinstance(turns, list) else "not a list"
            problems.append(f"{path.relative_to(ROOT)}: {got} turns, the plan has {len(s['turns'])}")
            continue
        out = []
        for i, (t, planned) in enumerate(zip(turns, s["turns"])):
            if not isinstance(t, dict) or set(t) != {"user", "assistant"} or not all(
                isinstance(t[k], str) and t[k].strip() for k in ("user", "assistant")
            ):
                problems.append(f"{s['id']} turn {i}: needs non-empty \"user\" and \"assistant\" only")
                t = {"user": "?", "assistant": "?"}
            turn = {"user": t["user"].strip(), "assistant": t["assistant"].strip()}
            if planned.get("mentions"):
                turn["mentions"] = planned["mentions"]
                for m in planned["mentions"]:
                    if not says(turn["user"], facts[m]["value"]):
                        # Another spelling ("two times a week") may be one bemula reads as
                        # the value; the positive control decides.
                        print(
                            f"{iid}: warning: {s['id']} turn {i}: MENTIONS {m} but the user text lacks "
                            f"`{facts[m]['value']}` as written"
                        )
            out.append(turn)
        sessions.append({**{k: v for k, v in s.items() if k != "turns"}, "turns": out})
    fillers_path = work / "fillers.json"
    fillers = {}
    if fillers_path.exists():
        try:
            fillers = load(fillers_path)
        except json.JSONDecodeError as e:
            problems.append(f"{fillers_path.relative_to(ROOT)}: not JSON: {e}")
    else:
        problems.append(f"{fillers_path.relative_to(ROOT)}: missing")
    if problems:
        return None, problems
    by_id = {s["id"]: s for s in sessions}
    sidx = order(inst)
    requests = []
    for r in inst["requests"]:
        pos = r["position"]
        turn = by_id[pos["session"]]["turns"][pos["turn"]]
        if turn.get("mentions"):
            problems.append(f"{r['id']}: the request turn {pos['session']} turn {pos['turn']} also mentions facts")
        filler = fillers.get(r["id"])
        if not isinstance(filler, dict) or set(filler) != {"user", "assistant"}:
            problems.append(f"fillers.json: \"{r['id']}\" needs \"user\" and \"assistant\"")
            continue
        filler = {"user": filler["user"].strip(), "assistant": filler["assistant"].strip()}
        values = [facts[t]["value"] for t in r["targets"]]
        for v in values:
            if says(turn["assistant"], v):
                problems.append(f"{r['id']}: the confirmation ({pos['session']} turn {pos['turn']}) contains `{v}`")
            if says(filler["user"] + " " + filler["assistant"], v):
                problems.append(f"{r['id']}: the filler contains `{v}`")
            if r["type"] == "F4" and says(turn["user"], v):
                problems.append(f"{r['id']}: the F4 request contains its value `{v}`")
        after = (sidx[pos["session"]], pos["turn"])
        for s in sessions:
            for i, t in enumerate(s["turns"]):
                if (sidx[s["id"]], i) <= after:
                    continue
                for v in values:
                    for side in ("user", "assistant"):
                        if says(t[side], v):
                            problems.append(
                                f"{s['id']} turn {i} ({side}): `{v}` is banned after {r['id']} "
                                f"({pos['session']} turn {pos['turn']})"
                            )
        requests.append({**r, "turn": {"user": turn["user"], "assistant": turn["assistant"]}, "filler": filler})
    for f in inst["profile"].get("derived_facts", []):
        for s in sessions:
            for i, t in enumerate(s["turns"]):
                for side in ("user", "assistant"):
                    if says(t[side], f["value"]):
                        problems.append(f"{s['id']} turn {i} ({side}): derived value `{f['value']}` must never appear")
        for rid, fl in fillers.items():
            if isinstance(fl, dict) and says(" ".join(map(str, fl.values())), f["value"]):
                problems.append(f"fillers.json {rid}: derived value `{f['value']}` must never appear")
    out = {**inst, "sessions": sessions, "requests": requests}
    return out, problems


def cmd_assemble(ids, write=True):
    bad = 0
    for iid in ids:
        inst, problems = build(iid)
        for p in problems:
            print(f"{iid}: {p}")
        if problems:
            bad += 1
            continue
        if write:
            OUT.mkdir(parents=True, exist_ok=True)
            path = OUT / f"{iid}.json"
            path.write_text(json.dumps(inst, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"{iid}: ok, written to {path.relative_to(ROOT)}")
        else:
            print(f"{iid}: ok")
    if write and bad == 0:
        # A copy of the binary, when one was made, so that a rebuild cannot pull it away
        # in the middle of a check.
        bemula = ROOT / "target" / "realise" / "bemula"
        if not bemula.exists():
            bemula = ROOT / "target" / "debug" / "bemula"
        for args in (["validate"], ["validate", "--positive-control"]):
            with tempfile.TemporaryDirectory(prefix="realise-check-") as tmp:
                for iid in ids:
                    Path(tmp, f"{iid}.json").write_bytes((OUT / f"{iid}.json").read_bytes())
                r = subprocess.run([str(bemula), *args, tmp], cwd=ROOT)
            if r.returncode != 0:
                bad += 1
    return bad


def extract(iid):
    inst = load(OUT / f"{iid}.json")
    worksheet(iid)
    work = WORK / iid
    for s in inst["sessions"]:
        turns = [{"user": t["user"], "assistant": t["assistant"]} for t in s["turns"]]
        (work / f"{s['id']}.json").write_text(
            json.dumps(turns, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    fillers = {r["id"]: r["filler"] for r in inst["requests"]}
    (work / "fillers.json").write_text(
        json.dumps(fillers, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(work.relative_to(ROOT))


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, ids = argv[1], argv[2:]
    if cmd == "plan":
        cmd_plan()
    elif cmd == "worksheet":
        for iid in ids:
            worksheet(iid)
    elif cmd == "assemble":
        sys.exit(1 if cmd_assemble(ids) else 0)
    elif cmd == "extract":
        for iid in ids:
            extract(iid)
    elif cmd == "check":
        sys.exit(1 if cmd_assemble(ids, write=False) else 0)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
