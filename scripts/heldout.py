"""Precision and recall on the real-code corpus the rules were not tuned on (quality/CORPUS.md).

    python scripts/heldout.py --root DIR lint      # lint the held-out part (findings shown by default)
    python scripts/heldout.py --root DIR sample    # write review files for the sampled findings
    python scripts/heldout.py --root DIR report    # the precision table from quality/heldout_verdicts.csv
    python scripts/heldout.py --root DIR pooled    # the fresh rounds 5-50 together, each with its own sample
    python scripts/heldout.py --root DIR final     # the final-rules column: verdicts of items still reported
    python scripts/heldout.py --root DIR recall    # recall on the hand-labelled files of quality/recall/
    python scripts/heldout.py --root DIR judged --code TFE601  # judged items a working-tree change alters

``--units round5`` (or ``round6`` ... ``round51``) restricts any of them to the units added in that
round (``corpus_units.ROUND5`` ... ``ROUND51``), with its own findings file and review directory; the
default, ``all``, is every unit.

A review item is one rule's findings on one line of one file, at the default minimum severity
(warning: what users see).  Per rule the items are ordered by the SHA-256 of
``<seed>:<unit>/<path>:<line>:<code>`` and the first 25 are sampled (50 when there are 100 or
more).  The seed is 16 for round 2's measurement, 18 for round 3's first sample, 19 (the default)
for its sample after the precision passes, 20 for round 5's measurement on the units added then
(``--units round5``), 21 for round 6's (``--units round6``), 22 for round 7's, of the final
rules (``--units round7``), 23 for round 8's, of the rules as changed after round 7 was judged
(``--units round8``), 24 for round 9's, of the final rules on TF1 tutorials and course
material (``--units round9``), 25 for round 10's, of the final rules on TF2 and Keras code
(``--units round10``), 26 for round 11's, of the final rules on more TF1 tutorials and courses
(``--units round11``), 27 for round 12's, of the final rules on TF1 research code and TF2
libraries (``--units round12``), 28 for round 13's, of the final rules on TF1 GANs, VAEs and
reinforcement learning (``--units round13``), 29 for round 14's, of the final rules on TF1 NLP,
research libraries and Keras 2 projects (``--units round14``), 30 for round 15's, of the final
rules on TF1 research libraries, RL and NLP code and TF2 libraries (``--units round15``), 31
for round 16's, of the final rules on TF1 tutorials, books and small research projects (``--units round16``),
32 for round 17's, of the final rules on TF1 books, RL agents and vision and speech projects (``--units round17``),
and 33 for round 18's, of the final rules on TF1 vision, OCR, speech and capsule-network projects and
course notebooks (``--units round18``); verdicts are kept per item, so an item sampled again keeps its
verdict.
A verdict is ``true`` (a real defect or risk the maintainer would accept a change for), ``false``
or ``debatable``; debatable verdicts above 20% of a sample count as false.
A rule with fewer than 20 items is reported as unmeasured.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import corpus_units  # noqa: E402
import realcode  # noqa: E402
from tflint_effective.engine.lint import lint_source  # noqa: E402
from tflint_effective.frontends.discovery import SKIP_DIRS  # noqa: E402
from tflint_effective.frontends.tf1_directories import TF1Directories  # noqa: E402
from tflint_effective.levels import SEVERITY_RANK, WARNING  # noqa: E402

VERDICTS = ROOT / "quality" / "heldout_verdicts.csv"
LABELS = ROOT / "quality" / "recall" / "labels.csv"
SEEDS = {"round2": 16, "round3": 18, "round3, after the precision passes": 19, "round5 (fresh held-out units)": 20,
         "round6 (fresh held-out units)": 21, "round7 (fresh held-out units, final rules)": 22,
         "round8 (fresh held-out units, final rules)": 23, "round9 (fresh held-out units, final rules)": 24,
         "round10 (fresh held-out TF2 units, final rules)": 25, "round11 (fresh held-out units, final rules)": 26,
         "round12 (fresh held-out units, final rules)": 27, "round13 (fresh held-out units, final rules)": 28,
         "round14 (fresh held-out units, final rules)": 29, "round15 (fresh held-out units, final rules)": 30,
         "round16 (fresh held-out units, final rules)": 31,
         "round17 (fresh held-out units, final rules)": 32,
         "round18 (fresh held-out units, final rules)": 33,
         "round19 (fresh held-out units, final rules)": 34,
         "round20 (fresh held-out units, final rules)": 35,
         "round21 (fresh held-out units, final rules)": 36,
         "round22 (fresh held-out units, final rules)": 37,
         "round23 (fresh held-out units, final rules)": 38,
         "round24 (fresh held-out units, final rules)": 39,
         "round25 (fresh held-out units, final rules)": 40,
         "round26 (fresh held-out units, final rules)": 41,
         "round27 (fresh held-out units, final rules)": 42,
         "round28 (fresh held-out units, final rules)": 43,
         "round29 (fresh held-out units, final rules)": 44,
         "round30 (fresh held-out units, final rules)": 45,
         "round31 (fresh held-out units, final rules)": 46,
         "round32 (fresh held-out units, final rules)": 47,
         "round33 (fresh held-out units, final rules)": 48,
         "round34 (fresh held-out units, final rules)": 49,
         "round35 (fresh held-out units, final rules)": 50,
         "round36 (fresh held-out units, final rules)": 51,
         "round37 (fresh held-out units, final rules)": 52,
         "round38 (fresh held-out units, final rules)": 53,
         "round39 (fresh held-out units, final rules)": 54,
         "round40 (fresh held-out units, final rules)": 55,
         "round41 (fresh held-out units, final rules)": 56,
         "round42 (fresh held-out units, final rules)": 57,
         "round43 (fresh held-out units, final rules)": 58,
         "round44 (fresh held-out units, final rules)": 59,
         "round45 (fresh held-out units, final rules)": 60,
         "round46 (fresh held-out units, final rules)": 61,
         "round47 (fresh held-out units, final rules)": 62,
         "round48 (fresh held-out units, final rules)": 63,
         "round49 (fresh held-out units, final rules)": 64,
         "round50 (fresh held-out units, final rules)": 65,
         "round51 (fresh held-out units, final rules)": 66}
SEED = 19
# The fresh rounds and the seed of each one's own sample (``pooled``); "roundN" is corpus_units.ROUNDN,
# the units added in round N.  --units: names of the units to use (None: all).
FRESH_SEEDS = {"round5": 20, "round6": 21, "round7": 22, "round8": 23, "round9": 24, "round10": 25, "round11": 26,
               "round12": 27, "round13": 28, "round14": 29, "round15": 30, "round16": 31, "round17": 32, "round18": 33,
               "round19": 34, "round20": 35, "round21": 36, "round22": 37, "round23": 38, "round24": 39,
               "round25": 40, "round26": 41, "round27": 42, "round28": 43, "round29": 44,
               "round30": 45, "round31": 46, "round32": 47, "round33": 48, "round34": 49, "round35": 50,
               "round36": 51, "round37": 52, "round38": 53, "round39": 54,
               "round40": 55, "round41": 56, "round42": 57, "round43": 58, "round44": 59, "round45": 60,
               "round46": 61, "round47": 62, "round48": 63, "round49": 64, "round50": 65,
               "round51": 66, "round52": 67, "round53": 68, "round54": 69, "round55": 70, "round56": 71,
               "round57": 72, "round58": 73, "round59": 74, "round60": 75, "round61": 76, "round62": 77, "round63": 78,
               "round64": 79, "round65": 80, "round66": 81, "round67": 82,
               "round68": 83, "round69": 84, "round70": 85, "round71": 86, "round72": 87, "round73": 88,
               "round75": 89, "round77": 90, "round79": 91, "round80": 92, "round81": 93, "round82": 94,
               "round83": 95, "round84": 97, "round85": 98, "round86": 99, "round87": 100, "round88": 101,
               "round89": 102, "round90": 103, "round91": 104, "round92": 105, "round93": 106, "round94": 107,
               "round95": 108, "round96": 109, "round97": 110, "round98": 111, "round99": 112, "round100": 113,
               "round101": 114, "round102": 115, "round103": 116, "round104": 117,
               "round105": 118, "round106": 119, "round107": 120, "round108": 121, "round109": 122, "round110": 128,
               "round111": 129, "round112": 130, "round113": 131, "round114": 132,
               "round115": 133, "round116": 134}
UNIT_SETS = {"all": None, **{units: getattr(corpus_units, units.upper()) for units in FRESH_SEEDS}}
# Rounds whose findings of a rule a change made after their verdicts were seen altered (found by
# linting them again): their samples of that rule are not untouched.  The changes are listed in
# quality/MEASUREMENTS.md ("Changed after their findings had been seen").
# TFE102's change after round 45 (info in a module written for TF 1.x) altered rounds 44 and 45 (linted again);
# rounds 5 to 43 were not on the machine to lint again, so they count as altered too.  The changes after round 50
# (TFE602: what an inference run fetches; modes: a session made only to set GPU options; TFE801: batches or buffers
# of one) were checked by linting again every unit with a judged item of a rule they can touch, fetched again at
# its recorded commit.  The change after round 51 (a shift spelled ``tf.subtract``) removed its one TFE405 item;
# the change to TFE501 in the next session (the TF2 keyword error only in code with TF2 evidence) removed rounds
# 35's and 38's TFE501 items (every unit with a TFE501 item is on the machine; linted again, nothing else changed);
# the assignment that reaches a read (analysis/reaching.py), made then too, added TFE402-404 warnings in rounds 20,
# 27, 32, 33 and 45 and removed TFE601 items of rounds 26 and 30 (linted again: every unit with a judged item of a
# rule it can touch but TFE102, 121 of them fetched again at their recorded commits).  In the session after it,
# TFE402's index-only uses (argmax) removed a round-29 item, and names read inside a value reached at its assignment
# removed TFE401 items of rounds 29 and 44 and a TFE403 item of round 44 (the same units linted again).  In the
# session after that, TFE201's loops over another axis than the first removed warnings of rounds 6, 17, 41, 44 and
# 49, and a formula beside TensorFlow's stable op on the same logits removed TFE403 items of rounds 34 and 44 (every
# unit with a judged item of TFE201 or TFE402-404 is on the machine; all were linted again).  After round 55,
# TFE406's entropy under ``tf.stop_gradient`` removed both of that round's TFE406 items (the rule's only findings).
# After round 56, parameters passed a softmax and weighted products moved round 12's judged TFE402 item to TFE403
# and added TFE403 errors to rounds 33 and 53 (every unit on the machine linted again; units of rounds 5 to 43
# that are not on it may gain findings unseen).  After round 59, loop counts computed from literals (``range(1,
# steps + 1)``) removed round 59's TFE601 item of a loop that runs once (every unit on the machine linted again:
# nothing else changed), and an unwired ``assert_variables_initialized`` (TensorFlow raises on reading an
# uninitialised variable anyway) removed two TFE311 items of round 59 (every file on the machine that calls it linted
# again: nothing else changed).  After round 60, TFE501's loss followed to the one assignment the statements
# before the gradients show (analysis/holding.py) removed round 57's item of a single-device branch (every unit on
# the machine linted again: nothing else changed).  After round 61, TFE102's info in a module that passes a keyword
# only TF 1.x takes (``tf.nn.conv2d(x, filter=w)``) or whose directory holds TF 1.x code changed items of rounds 52,
# 54, 57 and 59 (their units fetched and linted again, with every unit on the machine: nothing else changed).  After
# round 62, a function that calls ``.numpy()`` runs eagerly: 21 of round 62's 33 TFE301 errors go (every unit on the
# machine linted again: nothing else changed).  After that, TF 1.x names beside ``.numpy()`` are TF1 eager code and a
# method that only traced code calls is traced: round 62's 9 TFE301 errors still reported go or become info; and
# TFE601 counts a loop whose body ends in an unconditional ``break`` as one pass: round 62's false item of that kind
# goes (every unit on the machine linted again: nothing else changed at warning or above).  After round 63, TFE301's
# ``any(t)`` / ``all(t)`` in eager code is an error only for rows of more than one element: round 63's TFE301 item goes.
# After round 66, TFE601 skips a branch that asks for a remainder that never comes (``step % 10 == 450``): round 66's
# 9 TFE601 items go (every unit on the machine linted again: nothing else changed).  In round 74 (development units),
# TFE601 counts a loop whose body ends in ``exit()`` / ``sys.exit()`` as one pass: every unit on the machine linted
# again, nothing changed.  In round 76, TFE407 is info in a test suite (a test module that imports pytest,
# unittest or absl.testing, derives from tf.test.TestCase or defines test_* functions): rounds 12, 14 and 50's items
# in test files become info (5 false, 1 debatable; the files fetched again at their commits and linted).
# After round 79, TFE102's old keyword in one branch of a test of TensorFlow's version, the new one in the other, is
# info: round 79's item (false) goes; every unit on the machine linted again, nothing else changed.
# After round 83, TFE407 reports a model only when it is trained, evaluated or handed on after its compile, and
# follows helper-built models and names rebound in straight-line code: round 49's false item (a script that ends
# after printing summaries) goes and round 50's unit gains two warnings (every .py on the machine that names a
# cross-entropy linted again; nothing else changed at warning or above).  After round 85, TFE901 reads TF 1.x's
# ``tf.layers.dropout`` / ``tf.layers.Dropout``, which take the drop rate: rounds 5, 56, 83 and 85 gain one error each
# (every .py on the machine that names them and a keep probability linted again; judged after round 85).  After
# round 87, TFE311 leaves alone a discarded check written again in the same block with its result used (the TF
# guide's ``tf.Print(t, [t])  # does nothing`` beside ``v = tf.Print(t, [t])``): rounds 65 and 87's false items of
# that kind go (every .py on the machine that names a check linted again; nothing else changed).  After round 88,
# a shift by the maximum followed by a temperature (``exp((q - max_q) / tau)``) is the stable form (TFE405, TFE401),
# and ``tf.latest_checkpoint`` at the root gives a Python string, as ``tf.train``'s does (TFE301): round 88's two
# false items of those kinds go (every .py on the machine that spells ``exp(`` or a checkpoint function linted
# again; nothing else changed).  After round 93, a hand-written loss in module-level code of a module that trains
# nothing (no optimizer, gradient, tape or Keras training call) is info (TFE402-TFE404): only evaluated, no NaN
# gradient; rounds 5, 20, 47, 58 and 92's false and debatable items of that kind go (every .py on the machine that
# spells a log and a softmax or sigmoid linted again; nothing else changed).  After round 94: a softmax an attribute
# holds, set beside the stable cross-entropy on the same attribute's logits, is a comparison (TFE403: rounds 46 and 94's
# false items); a function only called under ``with assert_raises(...)`` shows the error (TFE701: rounds 83 and 94);
# a module importing ``tensorflow.compat.v2`` beside its v1 alias is no graph code by that alias (TFE311: round 94).
# Every .py on the machine that could change linted again; nothing else changed.  After round 97: a loop over
# ``enumerate``, ``reversed`` or ``zip`` of a counted iterable runs as often (TFE601: round 97's false item).  After
# round 98, a hand-written loss at module level of a TF1 script none of whose runs, evaluations, hand-offs to
# functions or collected summaries may be built from it is info, never run (TFE403-TFE404): rounds 20, 38, 92 and
# 98's false items of that kind go, and round 33's true item, a script cut off before its training loop.
# After round 106, TFE501's optimizer held by an attribute added round 106's 2 items (TFE501 there).  After round
# 109, these only add findings, none removed or moved (every .py on the machine they can touch linted before and
# after): a layer helper applying the activation its call passes, and a helper's return followed through an
# attribute or another helper (TFE402, TFE403); a function that only reads a global, a batch sliced out of data, a
# name every assignment of which is an op, ``op.run(feed)`` and an ``assign`` bound in the loop (TFE601).  The rounds
# whose units gain findings are marked; samples of the added findings are judged "after round 109".  After round
# 111, a model whose layers a loop only calls (``for layer in net.layers: X = layer(X)``) is still followed (TFE407):
# round 111's labelled instance, the one finding it adds on the machine (not judged).
# After round 112, TFE601 reads an index into a name every assignment of which is a session run's result (``tf.argmax(
# probs[i])`` after ``probs = sess.run(y)``) as NumPy data, not a graph element, and ignores what such a run reads: it
# adds 7 held-out findings on the 500 units then on the machine (every unit with a judged TFE601 item; none removed or
# moved), all judged "after round 112" (6 true, 1 debatable); rounds 19, 39, 52 and 95 gain them.  A batch size bound
# once to 1 counts as ``batch(1)`` (TFE801): no finding changed on those units.  Linted there, round 11's unit shows
# that the change after round 100 (evaluation data, TFE801) removed its 3 true items, validation pipelines: round 11
# counts as altered for TFE801 since.
# Then a parallel assignment binds each name to its own value (``batch_size, lr = 1, 0.003``; analysis/names.py):
# linted before and after, the 37,736 files on the machine change by exactly 3 findings: round 111's false TFE801
# item goes (a batch size of 1), and 2 TFE601 warnings come in round 44's unit (``step.assign(i)`` once ``step`` is
# known as a ``tf.Variable``), judged "after round 112" too.
# After round 114, a parameter a docstring calls a Tensor is not one when a call in the module passes it a Python
# number or a loop counter (TFE302 and the other tensor rules; analysis/counters.py), and an assert comparing an
# estimator's mode with a mode key needs no wiring (TFE311).  Linted with both and without, every rule at every
# severity, the 33,312 files that mention tensors in the 798 units on the machine (round 115's included) differ by
# round 114's 2 false TFE302 items and round 113's false TFE311 item, gone, and nothing else.
# After round 115's items were listed (before their verdicts came in), a log of a softmax that only feeds
# ``top_k`` (a beam search step) is no TFE402 finding: linted with it and without, the 353 files that spell ``top_k``
# and ``softmax`` differ by 8 TFE402 errors, gone: round 109's false item, round 88's and round 114's 2 debatable
# ones (the TF 1.x model garden's textsum decoder and its copies) and round 115's 4 sampled items, judged false.
# Then a squeeze bound to a function's local that the function never reads is info (TFE103): the 3,314 files on the
# machine that spell ``squeeze``, linted with it and without, differ by round 113's 2 false items (an Estimator
# ``model_fn``'s dead ``output = tf.squeeze(logits)``), now info, and nothing else.
# After round 116, False passed by position for a training flag of a function of the module (``generator(z, False)``
# of ``def generator(z, is_train=True)``) shows an inference run, like ``is_training=False`` (TFE602): the 731 files
# on the machine that spell a batch norm and ``minimize`` or ``apply_gradients``, linted with it and without, differ
# by 14 TFE602 errors, added, all in round 116's Udacity face-generation unit (its labelled instance among them),
# judged "after round 116" (14 true).  Then a naive softmax of logits written out whose exponentials, all summed,
# stay below float16's largest value is no TFE401 finding: the 8,653 files on the machine that spell ``reduce_sum``
# and ``exp`` or ``softmax`` and ``log``, linted with it and without (TFE401-TFE405), differ by round 116's 18 TFE401
# items judged false (a lesson's softmax formula on constant logits of at most 4), gone, and nothing else.
ALTERED = {"TFE102": {f"round{n}" for n in [*range(5, 46), 52, 54, 57, 59, 79]},
           "TFE103": {"round6", "round113"},
           "TFE201": {"round5", "round6", "round17", "round41", "round44", "round49"},
           "TFE401": {"round29", "round44", "round116"},
           "TFE301": {"round5", "round13", "round18", "round24", "round29", "round62", "round63", "round88"},
           "TFE302": {"round114"},
           "TFE311": {"round29", "round48", "round59", "round65", "round87", "round94", "round113"},
           "TFE402": {"round7", "round12", "round20", "round23", "round29", "round33", "round36", "round40",
                      "round44", "round45", "round88", "round94", "round101", "round109", "round114", "round115"},
           "TFE403": {"round5", "round6", "round11", "round12", "round19", "round20", "round21", "round22", "round27",
                      "round32", "round33", "round34", "round36", "round40", "round44", "round45", "round46",
                      "round53", "round56", "round60", "round62", "round69", "round70", "round83", "round87",
                      "round89", "round90", "round92", "round94", "round95", "round97", "round98", "round99",
                      "round100", "round101"},
           "TFE404": {"round5", "round8", "round11", "round12", "round15", "round16", "round20", "round32", "round33",
                      "round34", "round38", "round40", "round44", "round45", "round47", "round56", "round58",
                      "round65", "round69", "round87", "round90", "round91", "round92", "round93", "round100"},
           "TFE601": {"round5", "round6", "round7", "round12", "round15", "round17", "round19", "round20", "round21",
                      "round23", "round26", "round27", "round28", "round30", "round32", "round33", "round34", "round39",
                      "round40", "round44", "round45", "round52", "round54", "round56", "round59", "round62", "round66",
                      "round70", "round73", "round83", "round84", "round85", "round89", "round90", "round92", "round95",
                      "round96", "round97", "round98", "round99", "round107"},
           "TFE602": {"round7", "round11", "round17", "round20", "round21", "round23", "round27", "round47",
                      "round116"},
           "TFE405": {"round51", "round88"},
           "TFE406": {"round55"},
           "TFE501": {"round35", "round38", "round57", "round106"},
           "TFE702": {"round10"},
           "TFE801": {"round11", "round34", "round99", "round111"},
           "TFE901": {"round5", "round29", "round56", "round83", "round85"},
           "TFE407": {"round12", "round14", "round49", "round50", "round111"},
           "TFE701": {"round83", "round94"}}


TF1_DIRECTORIES = TF1Directories()


def _lint(text: str, path: Path):
    """The file's diagnostics as ``check`` finds them (its directory's TF 1.x code included)."""
    return lint_source(text, str(path), tf1_directory=TF1_DIRECTORIES.at(str(path.parent)))


def _unit_dir(root: Path, name: str) -> Path:
    return realcode.unit_dir(next(u for u in realcode.UNITS if u.name == name), root)


def _findings_file(root: Path, split: str, units: str = "all") -> Path:
    return root / (f"findings-{split}.jsonl" if units == "all" else f"findings-{split}-{units}.jsonl")


def lint(root: Path, split: str, units: str = "all") -> None:
    with _findings_file(root, split, units).open("w") as out:
        for unit, path in realcode.python_files(root, split=split, names=UNIT_SETS[units]):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            relative = path.relative_to(_unit_dir(root, unit))
            if SKIP_DIRS.intersection(relative.parts[:-1]):
                continue  # a tool folder (.ipynb_checkpoints, build, ...): `check` never walks it
            relative = relative.as_posix()
            for d in _lint(text, path):
                out.write(json.dumps({"unit": unit, "path": relative, "line": d.line, "end_line": d.end_line,
                                      "code": d.code, "severity": d.severity, "message": d.message}) + "\n")


def _items(root: Path, split: str, units: str = "all"):
    """(unit, path, line, code) -> severity, for findings shown by default."""
    items = {}
    for row in map(json.loads, _findings_file(root, split, units).open()):
        if row["code"] != "TFE000" and SEVERITY_RANK[row["severity"]] >= SEVERITY_RANK[WARNING]:
            items[(row["unit"], row["path"], row["line"], row["code"])] = row["severity"]
    return items


def _sample(items, seed=None):
    by_code = defaultdict(list)
    for key in items:
        by_code[key[3]].append(key)
    sampled = {}
    for code, keys in by_code.items():
        keys.sort(key=lambda k: hashlib.sha256(f"{seed or SEED}:{k[0]}/{k[1]}:{k[2]}:{k[3]}".encode()).hexdigest())
        sampled[code] = keys[:50 if len(keys) >= 100 else 25]
    return by_code, sampled


def _verdicts():
    if not VERDICTS.exists():
        return {}
    with VERDICTS.open() as handle:
        return {(r["unit"], r["path"], int(r["line"]), r["code"]): r for r in csv.DictReader(handle)}


def sample(root: Path, seed: int, units: str = "all") -> int:
    items = _items(root, "heldout", units)
    _, sampled = _sample(items, seed)
    verdicts = _verdicts()
    review = root / ("review" if units == "all" else f"review-{units}")
    review.mkdir(exist_ok=True)
    missing = 0
    for code, keys in sorted(sampled.items()):
        lines = []
        for unit, path, line, _ in keys:
            source = (_unit_dir(root, unit) / path).read_text(encoding="utf-8").splitlines()
            verdict = verdicts.get((unit, path, line, code), {}).get("verdict", "TODO")
            missing += verdict == "TODO"
            lines.append(f"## {unit}/{path}:{line} {code} [{items[(unit, path, line, code)]}] {verdict}")
            for number in range(max(1, line - 8), min(len(source), line + 4) + 1):
                lines.append(f"{'>' if number == line else ' '}{number:5d} {source[number - 1]}")
            lines.append("")
        (review / f"{code}.txt").write_text("\n".join(lines))
    print(f"review files in {review}; {missing} sampled items without a verdict")
    return 1 if missing else 0


def report(root: Path, seed: int, units: str = "all") -> int:
    _print_table(_tally(root, {units: seed}))
    return 0


def pooled(root: Path, seed: int = 0, units: str = "all") -> int:
    """The fresh rounds together: each round's own sample (its seed) of the findings on its units;
    then only the rounds whose findings of a rule no later change of the rules altered."""
    print("All fresh rounds, the final rules:\n")
    _print_table(_tally(root, FRESH_SEEDS))
    print("\nUntouched: per rule, only the rounds judged before no change altered its findings there:\n")
    _print_table(_tally(root, FRESH_SEEDS, skip=ALTERED))
    return 0


def untouched(root: Path, seed: int = 0, units: str = "all") -> int:
    """``pooled``'s untouched table from the verdicts alone (no findings files needed): per rule,
    the independent verdicts on units of the fresh rounds that no later change altered for it."""
    round_of = {name: units for units in FRESH_SEEDS for name in UNIT_SETS[units]}
    totals = defaultdict(Counter)
    for (unit, _, _, code), row in _verdicts().items():
        units = round_of.get(unit)
        if units is not None and units not in ALTERED.get(code, ()) and "developer" not in row["judged_by"]:
            totals[code].update((row["verdict"], "sampled", "findings"))
    print("Untouched, from the verdicts (findings: the judged items):\n")
    _print_table(totals)
    return 0


def final(root: Path, seed: int = 0, units: str = "all") -> int:
    """The final-rules column from the verdicts alone: per rule, the independent verdicts on the fresh
    rounds' samples, and those of the items the working tree still reports at the default severity (an
    item whose unit is not under ``root`` is counted as missing)."""
    round_of = {name: units for units in FRESH_SEEDS for name in UNIT_SETS[units]}
    judged, still, missing, reported = defaultdict(Counter), defaultdict(Counter), Counter(), {}
    for (unit, path, line, code), row in _verdicts().items():
        if round_of.get(unit) is None or "developer" in row["judged_by"] or "after round" in row["judged_by"]:
            continue  # not a fresh round's sample: a developer's verdict, or every finding a change added
        source = _unit_dir(root, unit) / path
        if not source.exists():
            missing[code] += 1
            continue
        judged[code][row["verdict"]] += 1
        if (unit, path) not in reported:
            text = source.read_text(encoding="utf-8", errors="replace")
            reported[(unit, path)] = {(d.line, d.code) for d in _lint(text, source)
                                      if SEVERITY_RANK[d.severity] >= SEVERITY_RANK[WARNING]}
        if (int(line), code) in reported[(unit, path)]:
            still[code][row["verdict"]] += 1
    print("| rule | judged (true/false/debatable) | still reported | precision | units missing here |")
    print("| --- | --- | --- | ---: | ---: |")
    for code in sorted(judged):
        t, f, d = (still[code][v] for v in ("true", "false", "debatable"))
        rate = f"{t / (t + f):.1%}" if t + f else "n/a"
        print(f"| {code} | {'/'.join(str(judged[code][v]) for v in ('true', 'false', 'debatable'))} | "
              f"{t}/{f}/{d} | {rate} | {missing[code]} |")
    return 0


def _tally(root: Path, seeds, skip=None) -> dict:
    """code -> Counter of findings, sampled items and verdicts, over the unit sets of ``seeds``
    (``skip``: code -> unit sets left out for it)."""
    verdicts = _verdicts()
    totals = defaultdict(Counter)
    for units, seed in seeds.items():
        by_code, sampled = _sample(_items(root, "heldout", units), seed)
        for code, keys in by_code.items():
            if skip and units in skip.get(code, ()):
                continue
            totals[code].update(findings=len(keys), sampled=len(sampled[code]))
            totals[code].update(verdicts.get((*k[:3], code), {}).get("verdict", "TODO") for k in sampled[code])
    return totals


def _print_table(totals) -> None:
    print("| rule | findings | sampled | true | false | debatable | precision |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for code, counts in sorted(totals.items()):
        false = counts["false"] + max(0, counts["debatable"] - counts["sampled"] // 5)
        judged = counts["true"] + false
        if counts["findings"] < 20:
            precision = "unmeasured (< 20 findings)"
        else:
            precision = f"{100 * counts['true'] / judged:.1f}%" if judged else "n/a"
        print(f"| {code} | {counts['findings']} | {counts['sampled']} | {counts['true']} | {counts['false']} "
              f"| {counts['debatable']} | {precision} |")


def recall(root: Path, seed: int = 0, units: str = "all") -> int:
    names = UNIT_SETS[units]
    with LABELS.open() as handle:
        labels = [r for r in csv.DictReader(handle) if not r["note"].startswith("debatable:")
                  and (names is None or r["unit"] in names)]
    files = {(r["unit"], r["path"]) for r in csv.DictReader((ROOT / "quality" / "recall" / "files.csv").open())
             if names is None or r["unit"] in names}
    if not files:
        print(f"no labelled files in the {units} units")
        return 0
    found, absent = defaultdict(list), {(u, path) for u, path in files if not (_unit_dir(root, u) / path).exists()}
    if absent:  # an incomplete corpus: its labels are left out, and said so
        print(f"{len(absent)} labelled files are not under {root}; their labels are not counted")
        labels = [r for r in labels if (r["unit"], r["path"]) not in absent]
    for unit, path in sorted(files - absent):
        text = (_unit_dir(root, unit) / path).read_text(encoding="utf-8")
        for d in _lint(text, _unit_dir(root, unit) / path):
            found[(unit, path, d.code)].append(d)
    hits, shown, total = Counter(), Counter(), Counter()
    for label in labels:
        line, key = int(label["line"]), (label["unit"], label["path"], label["code"])
        matches = [d for d in found[key] if d.line <= line <= max(d.end_line, d.line)]
        total[label["code"]] += 1
        hits[label["code"]] += bool(matches)
        shown[label["code"]] += any(SEVERITY_RANK[d.severity] >= SEVERITY_RANK[WARNING] for d in matches)
    print("| rule | labelled | found (any severity) | found at warning or above |")
    print("| --- | ---: | ---: | ---: |")
    for code in sorted(total):
        print(f"| {code} | {total[code]} | {hits[code]} | {shown[code]} |")
    rate = f" ({sum(hits.values()) / sum(total.values()):.3f})" if total else ""  # files may hold no instance
    print(f"| all | {sum(total.values())} | {sum(hits.values())}{rate} | {sum(shown.values())} |")
    return 0


def judged(root: Path, code: str) -> int:
    """Lint again every file that holds a finding of ``code`` in the fresh rounds' findings files
    and list the judged items whose finding shown by default the working tree removes or moves
    to another severity, with their verdicts: what a change to a rule costs before it is kept.
    (Findings it adds are not looked for: ``lint`` the rounds for those.)"""
    verdicts, relinted, changed = _verdicts(), {}, Counter()
    for units in FRESH_SEEDS:
        items = _items(root, "heldout", units) if _findings_file(root, "heldout", units).exists() else {}
        for (unit, path, line, found), severity in items.items():
            verdict = verdicts.get((unit, path, line, found))
            if found != code or verdict is None:
                continue
            if (unit, path) not in relinted:
                source = _unit_dir(root, unit) / path
                relinted[unit, path] = {(d.line, d.code): d.severity
                                        for d in _lint(source.read_text(encoding="utf-8"), source)}
            now = relinted[unit, path].get((line, code))
            if now != severity:
                changed[verdict["verdict"]] += 1
                print(f"{units} {unit}/{path}:{line} {severity} -> {now or 'gone'}: {verdict['verdict']}")
    print(f"{code}: judged items altered: {dict(changed) or 'none'}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=realcode.DEFAULT_ROOT)
    parser.add_argument("command", choices=["lint", "sample", "report", "pooled", "untouched", "final", "recall",
                                            "judged"])
    parser.add_argument("--code", help="judged: the rule whose judged items to check")
    parser.add_argument("--split", default="heldout", choices=["heldout", "dev"])
    parser.add_argument("--seed", type=int, default=SEED, help=f"sampling seed (default {SEED}; rounds: {SEEDS})")
    parser.add_argument("--units", default="all", choices=list(UNIT_SETS),
                        help="all units (default), or only those added in the named round")
    args = parser.parse_args(argv)
    if args.command == "lint":
        lint(args.root, args.split, args.units)
        return 0
    if args.command == "judged":
        if not args.code:
            parser.error("judged needs --code")
        return judged(args.root, args.code)
    commands = {"sample": sample, "report": report, "pooled": pooled, "untouched": untouched, "final": final,
                "recall": recall}
    return commands[args.command](args.root, args.seed, args.units)


if __name__ == "__main__":
    sys.setrecursionlimit(20000)
    sys.exit(main())
