#!/usr/bin/env python3
"""Train the page-type model of trawl's classifier (extract/src/pagetype_model.rs) on the
tuning part of ../shared/testdata/wcxb-dev, and report its accuracy on both parts.

  pagetype_train.py --trawl BIN [--data DIR] [--write extract/src/pagetype_model.rs]

BIN is a trawl binary: its extraction is traced (`page type features`: the classifier's
features and the verdict of its rules) over every development page. The model is a
multinomial logistic regression over the features (standardised on the tuning part), fitted
by full-batch gradient descent from zero (deterministic: the same features give the same
weights), with its L2 penalty chosen by five-fold cross-validation on the tuning part; the
validation part is only scored. The classifier uses it where its rules are unsure (below
RULES_SURE in pagetype.rs), and the hybrid is what is reported and what trawl ships.
Needs numpy (the bench venv has it).
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wcxb_split import page_type, part_of  # noqa: E402

TYPES = ["article", "forum", "product", "collection", "listing", "documentation", "service"]
RUST = {t: t.capitalize() for t in TYPES}
RULES_SURE = 0.7  # as in extract/src/pagetype.rs

ap = argparse.ArgumentParser()
ap.add_argument("--trawl", required=True)
ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "testdata", "wcxb-dev"))
ap.add_argument("--write", help="where to write the model (Rust source)")
ap.add_argument("--iters", type=int, default=3000)
a = ap.parse_args()

# features from the trace (the first event per page: a page's <noscript> copy is extracted
# after it)
with tempfile.TemporaryDirectory() as out:
    cfg = subprocess.run([a.trawl, "config", "default"], capture_output=True, text=True, check=True).stdout
    cfg = re.sub(r"(?m)^min_text_chars = 200$", "min_text_chars = 0", cfg)
    open(os.path.join(out, "c.toml"), "w").write(cfg)
    env = dict(os.environ, TRAWL_LOG="trawl_extract::dom=trace")
    log = subprocess.run([a.trawl, "--log-format", "json", "extract", "--config", os.path.join(out, "c.toml"),
                          "--input", os.path.join(a.data, "html"), "--output", os.path.join(out, "o")],
                         env=env, capture_output=True, text=True, check=True).stderr
X, rules, names = {}, {}, None
for line in log.splitlines():
    if '"page type features"' not in line:
        continue
    f = json.loads(line)["fields"]
    m = re.search(r"/(\d+)\.html", f["url"])
    if m and m.group(1) not in X:
        X[m.group(1)] = json.loads(f["features"])
        names = json.loads(f["names"])
        rules[m.group(1)] = (f["rules"], float(f["sure"]))
gold = {}
for f in glob.glob(os.path.join(a.data, "ground-truth", "*.json")):
    gold[os.path.basename(f)[:-5]] = page_type(json.load(open(f)))
ids = sorted(i for i in gold if i in X)
tune = [i for i in ids if part_of(i) == "tune"]
valid = [i for i in ids if part_of(i) == "valid"]
Xt = np.array([X[i] for i in tune]); yt = np.array([TYPES.index(gold[i]) for i in tune])
Xv = np.array([X[i] for i in valid]); yv = np.array([TYPES.index(gold[i]) for i in valid])


def fit(X, y, lam, mu, sd):
    Z = np.hstack([(X - mu) / sd, np.ones((len(X), 1))])
    W = np.zeros((Z.shape[1], len(TYPES)))
    Y = np.eye(len(TYPES))[y]
    for _ in range(a.iters):
        S = Z @ W
        S -= S.max(1, keepdims=True)
        P = np.exp(S)
        P /= P.sum(1, keepdims=True)
        R = lam * W
        R[-1] = 0
        W -= 0.5 * (Z.T @ (P - Y) / len(y) + R)
    return W


def predict(W, X, mu, sd):
    return (np.hstack([(X - mu) / sd, np.ones((len(X), 1))]) @ W).argmax(1)


def standardise(X):
    return X.mean(0), X.std(0) + 1e-6


folds = np.array([int(i) % 5 for i in tune])
best = None
for lam in (0.001, 0.003, 0.01, 0.03, 0.1):
    acc = []
    for k in range(5):
        mu, sd = standardise(Xt[folds != k])
        W = fit(Xt[folds != k], yt[folds != k], lam, mu, sd)
        acc.append(np.mean(predict(W, Xt[folds == k], mu, sd) == yt[folds == k]))
    print(f"L2 {lam:<6} cross-validated accuracy on the tuning part {np.mean(acc):.3f}")
    if best is None or np.mean(acc) > best[1] + 1e-9:
        best = (lam, np.mean(acc))
lam = best[0]
mu, sd = standardise(Xt)
W = fit(Xt, yt, lam, mu, sd)


def probs(W, X, mu, sd):
    S = np.hstack([(X - mu) / sd, np.ones((len(X), 1))]) @ W
    P = np.exp(S - S.max(1, keepdims=True))
    return (P / P.sum(1, keepdims=True)).max(1)


def hybrid(ii, pred, prob=None):
    if prob is None:
        prob = np.ones(len(ii))
    # (the trace prints the rules' f32 confidence as a double: 0.7 is 0.69999999)
    return [r if s >= RULES_SURE - 1e-6 or r == "other" or q <= s else TYPES[p]
            for (r, s), p, q in zip((rules[i] for i in ii), pred, prob)]


pt, pv = predict(W, Xt, mu, sd), predict(W, Xv, mu, sd)
for name, t, v in [("rules alone", [rules[i][0] for i in tune], [rules[i][0] for i in valid]),
                   ("model alone", [TYPES[p] for p in pt], [TYPES[p] for p in pv]),
                   ("rules, model where unsure", hybrid(tune, pt), hybrid(valid, pv)),
                   ("... and surer than rules", hybrid(tune, pt, probs(W, Xt, mu, sd)), hybrid(valid, pv, probs(W, Xv, mu, sd)))]:
    at = np.mean([p == gold[i] for p, i in zip(t, tune)])
    av = np.mean([p == gold[i] for p, i in zip(v, valid)])
    print(f"{name:<26} tuning {at:.3f} ({len(tune)} pages)  validation {av:.3f} ({len(valid)} pages)")
conf = collections.Counter(zip((gold[i] for i in tune), hybrid(tune, pt)))
print("tuning part, rules and model, gold (rows) x predicted:")
cols = TYPES + ["other"]
print(" " * 14 + "".join(f"{c[:7]:>8}" for c in cols))
for k in TYPES:
    print(f"{k:<14}" + "".join(f"{conf[(k, c)]:8d}" for c in cols))
if a.write:
    # the shortest decimal that reads back as the same f32
    f32 = lambda v: np.format_float_positional(np.float32(v), unique=True, trim="0")  # noqa: E731
    rows = ",\n".join("    [" + ", ".join(f32(v) for v in W[i]) + "]" for i in range(len(mu)))
    open(a.write, "w").write(f"""//! The page-type model (generated by `bench/pagetype_train.py` from the tuning part of
//! the WCXB development pages, CC-BY-4.0; do not edit): a multinomial logistic regression
//! over `pagetype::named_features`, L2 {lam}; accuracy of the model alone: tuning
//! {np.mean(pt == yt):.3f}, validation {np.mean(pv == yv):.3f}.

use crate::pagetype::FEATURES;
use crate::PageType;

/// The classes, in the order of the weights' columns.
pub(crate) const TYPES: [PageType; {len(TYPES)}] = [{", ".join("PageType::" + RUST[t] for t in TYPES)}];

/// The features the model was trained on, in order (its rows).
#[cfg(test)]
pub(crate) const COLUMNS: [&str; FEATURES] = [{", ".join(json.dumps(n) for n in names)}];

/// Each feature's mean and standard deviation on the tuning pages.
pub(crate) const MEAN: [f32; FEATURES] = [{", ".join(f32(v) for v in mu)}];
pub(crate) const SCALE: [f32; FEATURES] = [{", ".join(f32(v) for v in sd)}];

/// Weights: a row per feature, a column per class.
pub(crate) const WEIGHTS: [[f32; {len(TYPES)}]; FEATURES] = [
{rows},
];
pub(crate) const BIAS: [f32; {len(TYPES)}] = [{", ".join(f32(v) for v in W[-1])}];
""")
    print("wrote", a.write)
