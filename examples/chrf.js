#!/usr/bin/env node
// chrF / chrF++ (sacreBLEU >= 2.0 definition) as an external program for chrf-audit.
//
// Protocol: docs/external-protocol.md -- one JSON request per line on stdin, one JSON answer
// per line on stdout, in request order.  No npm dependencies.
//
//   node examples/chrf.js            # serve requests
//   chrf-audit run --external "node examples/chrf.js"
//
// Definitions supported (params.definition): "sacrebleu" (effective-order averaging of
// precision and recall) and "sacrebleu-eps" (per-order F with 1e-16 substitutes, averaged
// over all orders).  Texts are sequences of code points (Array.from), never UTF-16 units.
"use strict";

const VERSION = "1.0.0";
const EPS = 1e-16;

// Exactly Python's str.isspace() set (29 code points), which sacreBLEU removes.
const SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
  0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
const PUNCT = new Set(Array.from("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"));

function isSpace(cp) {
  return SPACE.has(cp.codePointAt(0));
}

// Python's str.split(): runs of whitespace separate words, no empty words.
function splitWords(cps) {
  const words = [];
  let cur = [];
  for (const c of cps) {
    if (isSpace(c)) {
      if (cur.length) words.push(cur);
      cur = [];
    } else {
      cur.push(c);
    }
  }
  if (cur.length) words.push(cur);
  return words;
}

// chrF++ tokens: at most one ASCII punctuation mark split off a word's end, else its start.
function wordTokens(cps) {
  const tokens = [];
  for (const w of splitWords(cps)) {
    if (w.length === 1) {
      tokens.push(w[0]);
    } else if (PUNCT.has(w[w.length - 1])) {
      tokens.push(w.slice(0, -1).join(""), w[w.length - 1]);
    } else if (PUNCT.has(w[0])) {
      tokens.push(w[0], w.slice(1).join(""));
    } else {
      tokens.push(w.join(""));
    }
  }
  return tokens;
}

// Counts of n-grams of one order; units are strings (code points or tokens).
function ngramCounts(units, n, joiner) {
  const counts = new Map();
  for (let i = 0; i + n <= units.length; i++) {
    const key = units.slice(i, i + n).join(joiner);
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  return counts;
}

// Per-order n-gram counters of one text: char orders 1..nc, then word orders 1..nw.
function profile(text, p) {
  let cps = Array.from(p.lowercase ? text.toLowerCase() : text);
  const chars = p.whitespace ? cps : cps.filter((c) => !isSpace(c));
  const orders = [];
  // Char n-grams are keyed by their code points joined with U+0000-free separator "".
  for (let n = 1; n <= p.char_order; n++) orders.push(ngramCounts(chars, n, ""));
  if (p.word_order > 0) {
    const toks = wordTokens(cps);
    for (let n = 1; n <= p.word_order; n++) orders.push(ngramCounts(toks, n, " "));
  }
  return orders;
}

// [hyp, ref, match] per order, flat; hypothesis count is 0 where the reference has none.
function matchStats(hyp, ref) {
  const stats = [];
  for (let k = 0; k < hyp.length; k++) {
    let h = 0, r = 0, m = 0;
    for (const c of ref[k].values()) r += c;
    for (const [g, c] of hyp[k]) {
      h += c;
      const rc = ref[k].get(g);
      if (rc !== undefined) m += Math.min(c, rc);
    }
    stats.push(r > 0 ? h : 0, r, m);
  }
  return stats;
}

// The score on 0..100 from flat statistics, with sacreBLEU's float operations.
function fScore(stats, p) {
  const factor = p.beta * p.beta;
  const order = stats.length / 3;
  let score = 0, avgP = 0, avgR = 0, eff = 0;
  for (let i = 0; i < order; i++) {
    const h = stats[3 * i], r = stats[3 * i + 1], m = stats[3 * i + 2];
    const prec = h > 0 ? m / h : EPS;
    const rec = r > 0 ? m / r : EPS;
    const denom = factor * prec + rec;
    score += denom > 0 ? ((1 + factor) * prec * rec) / denom : EPS;
    if (h > 0 && r > 0) {
      avgP += prec;
      avgR += rec;
      eff += 1;
    }
  }
  if (p.definition === "sacrebleu-eps") return (100 * score) / order;
  if (eff === 0) {
    avgP = 0;
    avgR = 0;
  } else {
    avgP /= eff;
    avgR /= eff;
  }
  if (avgP + avgR) {
    return (100 * ((1 + factor) * avgP * avgR)) / (factor * avgP + avgR);
  }
  return 0;
}

// Statistics against the best reference (highest sentence F, first on ties).
function bestStats(hypothesis, references, p) {
  const hp = profile(hypothesis, p);
  let best = null, bestF = -1;
  for (const ref of references) {
    const s = matchStats(hp, profile(ref, p));
    const f = fScore(s, p);
    if (f > bestF) {
      bestF = f;
      best = s;
    }
  }
  return best;
}

function checkParams(raw) {
  const p = Object.assign(
    { char_order: 6, word_order: 0, beta: 2, lowercase: false, whitespace: false, definition: "sacrebleu" },
    raw || {}
  );
  for (const k of ["char_order", "word_order"]) {
    if (!Number.isInteger(p[k]) || p[k] < 0 || (k === "char_order" && p[k] < 1)) {
      throw new Error(`invalid ${k}: ${JSON.stringify(p[k])}`);
    }
  }
  if (typeof p.beta !== "number" || !(p.beta > 0)) throw new Error(`invalid beta: ${p.beta}`);
  if (p.definition !== "sacrebleu" && p.definition !== "sacrebleu-eps") {
    throw new Error(`unsupported definition: ${p.definition}`);
  }
  if ((p.scale || 100) !== 100) throw new Error("only scale 100 is supported");
  return p;
}

function checkRefs(refs, what) {
  if (!Array.isArray(refs) || refs.length === 0) throw new Error(`${what} must be a non-empty list`);
  for (const r of refs) if (typeof r !== "string") throw new Error(`${what} must hold strings`);
}

function handle(req) {
  switch (req.op) {
    case "hello":
      return {
        name: "chrf.js",
        version: VERSION,
        protocol: 1,
        claims: { char_order: 6, word_order: 0, beta: 2, lowercase: false, whitespace: false, definition: "sacrebleu" },
        scale: 100,
        supports: { sentence: true, corpus: true, multi_reference: true },
        accepts: ["char_order", "word_order", "beta", "lowercase", "whitespace", "definition"],
        sources: {
          sentence: { module: "chrf.js", qualname: "fScore", file: __filename },
          corpus: { module: "chrf.js", qualname: "fScore", file: __filename },
        },
      };
    case "sentence": {
      const p = checkParams(req.params);
      if (typeof req.hypothesis !== "string") throw new Error("hypothesis must be a string");
      checkRefs(req.references, "references");
      return { score: fScore(bestStats(req.hypothesis, req.references, p), p) };
    }
    case "corpus": {
      const p = checkParams(req.params);
      const hyps = req.hypotheses, refs = req.references;
      if (!Array.isArray(hyps) || !Array.isArray(refs) || hyps.length !== refs.length || hyps.length === 0) {
        throw new Error("hypotheses and references must be non-empty lists of the same length");
      }
      let total = null;
      hyps.forEach((h, i) => {
        if (typeof h !== "string") throw new Error(`hypotheses[${i}] must be a string`);
        checkRefs(refs[i], `references[${i}]`);
        const s = bestStats(h, refs[i], p);
        total = total === null ? s : total.map((v, k) => v + s[k]);
      });
      return { score: fScore(total, p) };
    }
    default:
      throw new Error(`unknown op: ${req.op}`);
  }
}

function answer(line) {
  let id = null;
  try {
    const req = JSON.parse(line);
    id = req.id === undefined ? null : req.id;
    return Object.assign({ id }, handle(req));
  } catch (e) {
    return { id, error: String(e && e.message ? e.message : e) };
  }
}

module.exports = { fScore, bestStats, profile, wordTokens, handle };

if (require.main === module) {
  const readline = require("readline");
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  rl.on("line", (line) => {
    if (line.trim()) process.stdout.write(JSON.stringify(answer(line)) + "\n");
  });
}
