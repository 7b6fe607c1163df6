// swebench-run report: the pages of a report, drawn from data/summary.js and, on demand, one
// data/i/<run>/<id>.js per instance and data/search/<key>.js per search shard. Data arrives as
// scripts that call SR.summary, SR.inst and SR.shard (file:// allows no fetch of local files).
// No library, no network: every chart is inline SVG drawn here.
'use strict';
(function () {
  const SR = (window.SR = {});
  let S = null; // the summary
  let D = null; // derived from the summary
  const VERDICTS = { R: 'resolved', U: 'unresolved', E: 'error', P: 'empty patch', N: 'not submitted' };
  const VORDER = 'RUEPN';
  const VCOLOR = { R: 'var(--ok)', U: 'var(--bad)', E: 'var(--warn)', P: 'var(--none)', N: 'var(--ns)' };
  const PALETTE = ['#0969da', '#8250df', '#bf3989', '#1a7f37', '#bc4c00', '#0a7b83', '#6e7781', '#953800', '#4d2d00', '#0550ae'];
  const PAGE_ROWS = 200;

  // ---------- small helpers ----------
  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) setAttr(e, k, attrs[k]);
    append(e, kids);
    return e;
  }
  function setAttr(e, k, v) {
    if (v === undefined || v === null || v === false) return;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(e.style, v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  function append(e, kids) {
    for (const c of kids) {
      if (c === undefined || c === null || c === false) continue;
      if (Array.isArray(c)) append(e, c);
      else e.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    }
  }
  const SVGNS = 'http://www.w3.org/2000/svg';
  function s(tag, attrs, ...kids) {
    const e = document.createElementNS(SVGNS, tag);
    if (attrs) for (const k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) {
      if (k === 'text') e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    }
    append(e, kids);
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  const nf = new Intl.NumberFormat('en-US');
  function fmtInt(n) { return n === null || n === undefined || Number.isNaN(n) ? '–' : nf.format(Math.round(n)); }
  function fmtPct(f, digits) { return f === null || f === undefined || Number.isNaN(f) ? '–' : (100 * f).toFixed(digits === undefined ? 1 : digits) + '%'; }
  function fmtPts(d) {
    if (d === null || d === undefined || Number.isNaN(d)) return 'n/a';
    const v = Math.round(d * 1000) / 10;
    return v > 0 ? '+' + v.toFixed(1) : v < 0 ? '−' + (-v).toFixed(1) : '0.0';
  }
  function fmtCost(c) {
    if (c === null || c === undefined || Number.isNaN(c)) return '–';
    if (c === 0) return '$0';
    if (Math.abs(c) >= 100) return '$' + nf.format(Math.round(c));
    if (Math.abs(c) >= 1) return '$' + c.toFixed(2);
    if (Math.abs(c) >= 0.01) return '$' + c.toFixed(3);
    return '$' + c.toFixed(4);
  }
  function fmtDur(sec) {
    if (sec === null || sec === undefined || Number.isNaN(sec)) return '–';
    if (sec < 10) return sec.toFixed(1) + ' s';
    if (sec < 60) return Math.round(sec) + ' s';
    const m = Math.floor(sec / 60), r = Math.round(sec % 60);
    if (m < 60) return m + ' min ' + String(r).padStart(2, '0') + ' s';
    const hh = Math.floor(m / 60);
    return hh + ' h ' + String(m % 60).padStart(2, '0') + ' min';
  }
  function fmtTok(n) {
    if (n === null || n === undefined || Number.isNaN(n)) return '–';
    if (n >= 1e9) return (n / 1e9).toFixed(2) + 'B';
    if (n >= 1e6) return (n / 1e6).toFixed(2) + 'M';
    if (n >= 1e4) return (n / 1e3).toFixed(1) + 'k';
    return nf.format(n);
  }
  function fmtP(p) { return p >= 1 ? '1' : p < 0.0001 ? '< 0.0001' : Number(p.toPrecision(3)).toString(); }
  function num(a, i) { if (!a) return NaN; const v = a[i]; return v === null || v === undefined ? NaN : v; }
  // over says over how many instances an aggregate was taken (" · over 3 of 100"), when not over all.
  function over(d) { return d && d.n < d.of ? ' · over ' + fmtInt(d.n) + ' of ' + fmtInt(d.of) : ''; }
  function layoutName(layouts) {
    const ks = Object.keys(layouts || {}).filter((k) => layouts[k] > 0).sort();
    if (!ks.length) return '';
    return ks.length === 1 ? ks[0] + ' layout' : ks.map((k) => layouts[k] + ' in the ' + k + ' layout').join(', ');
  }
  function encodeID(id) {
    let out = '';
    const bytes = new TextEncoder().encode(id);
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      const ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || (c === 46 && i > 0) || c === 95 || c === 45;
      out += ok ? String.fromCharCode(c) : '~' + c.toString(16).padStart(2, '0');
    }
    return out;
  }
  function color(k) { return PALETTE[k % PALETTE.length]; }
  // icolor is input k's colour: one per name, so a model keeps its colour on every dataset.
  function icolor(k) { return color(D.hue[k]); }
  // Datasets: inputs are compared within their dataset only; with several, names say which.
  function multi() { return (S.compare.datasets || []).length > 1; }
  function dsTitle(name) { return name === '' || name === undefined ? 'the dataset no run records' : name; }
  function gateClass(v) { return 'gate ' + (v.outcome === 'regression' ? 'regression' : v.outcome === 'improvement' ? 'improvement' : 'same'); }
  function gateText(v) { return v.candidate + ' vs ' + v.baseline + (multi() ? ' on ' + dsTitle(v.dataset) : '') + ': ' + v.line; }
  function badge(v) { return h('span', { class: 'badge v-' + v, text: VERDICTS[v] || v }); }

  // ---------- loading scripts ----------
  const scripts = new Map();
  function loadScript(src) {
    if (scripts.has(src)) return scripts.get(src);
    const p = new Promise((resolve, reject) => {
      const el = document.createElement('script');
      el.src = src;
      el.onload = () => { el.remove(); resolve(); };
      el.onerror = () => { el.remove(); scripts.delete(src); reject(new Error('could not load ' + src)); };
      document.head.appendChild(el);
    });
    scripts.set(src, p);
    return p;
  }
  function bust() { return S && S.live ? '?s=' + S.stamp : ''; }

  // Instances: SR.inst stores what a script brought; inst() returns it decoded.
  const instRaw = new Map();
  const instData = new Map();
  SR.inst = function (run, id, data) { instRaw.set(run + '\u0000' + id, data); };
  async function inflate(b64) {
    const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }
  async function inst(run, id) {
    const key = run + '\u0000' + id + '\u0000' + (S.live ? S.stamp : '');
    if (instData.has(key)) return instData.get(key);
    const p = (async () => {
      await loadScript('data/i/' + run + '/' + encodeID(id) + '.js' + bust());
      const rk = run + '\u0000' + id;
      let d = instRaw.get(rk);
      if (d === undefined) throw new Error('no data for ' + id);
      instRaw.delete(rk);
      if (typeof d === 'string') d = await inflate(d);
      return d;
    })();
    instData.set(key, p);
    p.catch(() => instData.delete(key));
    return p;
  }

  // ---------- search ----------
  const shardRaw = new Map();
  const shards = new Map();
  SR.shard = function (key, text) { shardRaw.set(key, text); };
  const VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const VLQV = {};
  for (let i = 0; i < VLQ.length; i++) VLQV[VLQ[i]] = i;
  function decodePostings(str, out) {
    let cur = 0, shift = 0, prev = 0, first = true;
    for (let i = 0; i < str.length; i++) {
      const v = VLQV[str[i]];
      cur += (v & 31) * Math.pow(2, shift);
      if (v & 32) { shift += 5; continue; }
      prev = first ? cur : prev + cur;
      first = false;
      out.push(prev);
      cur = 0; shift = 0;
    }
  }
  function queryTerms(q) {
    const out = [];
    for (const m of q.toLowerCase().matchAll(/[\p{L}\p{Nd}_]+/gu)) {
      let w = m[0];
      const cps = Array.from(w);
      if (cps.length < 2) continue;
      if (cps.length > 40) w = cps.slice(0, 40).join('');
      if (skipTerm(w)) continue;
      out.push(w);
    }
    return out;
  }
  function skipTerm(w) {
    if (w.length < 11) return false;
    if (/^[0-9]+$/.test(w)) return true;
    return w.length >= 16 && /^[0-9a-f]+$/.test(w) && /[0-9]/.test(w);
  }
  function shardKey(w) {
    const ok = (c) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
    return w.length >= 2 && ok(w.charCodeAt(0)) && ok(w.charCodeAt(1)) ? w.slice(0, 2) : '~';
  }
  async function shard(key) {
    const ck = key + (S.live ? S.stamp : '');
    if (shards.has(ck)) return shards.get(ck);
    const p = (async () => {
      if (!S.live && !(S.search && S.search.shards.includes(key))) return { terms: [], posts: [] };
      await loadScript('data/search/' + key + '.js' + bust());
      const text = shardRaw.get(key) || '';
      shardRaw.delete(key);
      const terms = [], posts = [];
      if (text) for (const line of text.split('\n')) {
        const t = line.indexOf('\t');
        terms.push(line.slice(0, t));
        posts.push(line.slice(t + 1));
      }
      return { terms, posts };
    })();
    shards.set(ck, p);
    p.catch(() => shards.delete(ck));
    return p;
  }
  // Documents containing a term starting with w: {inst: Set of instance indices (problem text),
  // rows: Set of run*N+i (trajectory text)}.
  async function termDocs(w) {
    const sh = await shard(shardKey(w));
    const N = S.ids.length;
    let lo = 0, hi = sh.terms.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (sh.terms[m] < w) lo = m + 1; else hi = m; }
    const docs = [];
    for (let j = lo; j < sh.terms.length && sh.terms[j].startsWith(w); j++) decodePostings(sh.posts[j], docs);
    const inst = new Set(), rows = new Set();
    for (const d of docs) { if (d < N) inst.add(d); else rows.add(d - N); }
    return { inst, rows };
  }
  // searchMatch returns a function (run, i) → whether the row matches every term of q in its
  // text, or null when q has no searchable term.
  async function searchMatch(q) {
    const ws = queryTerms(q);
    if (!ws.length || (!S.search && !S.live)) return null;
    const sets = await Promise.all(ws.map(termDocs));
    const N = S.ids.length;
    return (r, i) => sets.every((x) => x.inst.has(i) || x.rows.has(r * N + i));
  }

  // ---------- derived data ----------
  function derive() {
    const N = S.ids.length;
    const several = (S.compare.datasets || []).length > 1;
    const d = { N, idIndex: new Map(), flip: [], flipAny: new Int8Array(N),
      inputLabel: S.compare.inputs.map((x) => several ? x.name + ' · ' + dsTitle(x.dataset) : x.name) };
    // The input of a name on a dataset (names repeat over datasets: a sweep's models).
    d.hue = S.compare.inputs.map((x) => S.compare.inputs.findIndex((y) => y.name === x.name));
    d.inputIndex = (ds, name) => S.compare.inputs.findIndex((x) => x.name === name && (x.dataset || '') === (ds || ''));
    S.ids.forEach((id, i) => d.idIndex.set(id, i));
    d.flaky = new Uint8Array(N);
    for (const i of S.flaky) d.flaky[i] = 1;
    // flips per pair: +1 newly resolved by b, −1 regressed in b.
    for (const p of S.compare.pairs || []) {
      for (const id of p.newly_resolved || []) { const i = d.idIndex.get(id); if (i !== undefined) d.flipAny[i] = d.flipAny[i] === -1 ? 2 : 1; }
      for (const id of p.regressed || []) { const i = d.idIndex.get(id); if (i !== undefined) d.flipAny[i] = d.flipAny[i] === 1 ? 2 : -1; }
    }
    d.rows = [];
    S.runs.forEach((run, r) => {
      const v = run.cells.v;
      for (let i = 0; i < N; i++) if (v[i] !== '.') d.rows.push([r, i]);
    });
    return d;
  }

  // ---------- routing ----------
  function parseHash() {
    const raw = location.hash.replace(/^#/, '') || '/';
    const [path, query] = raw.split('?');
    const params = new URLSearchParams(query || '');
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    return { page: parts[0] || 'overview', arg: parts[1], params };
  }
  function go(page, params, arg) {
    let hsh = '#/' + (page === 'overview' ? '' : page) + (arg ? '/' + encodeURIComponent(arg) : '');
    const q = params ? new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '' && v !== undefined && v !== null && v !== false)).toString() : '';
    if (q) hsh += '?' + q;
    if (location.hash !== hsh) location.hash = hsh;
    else route();
  }
  let current = null; // {page, cleanup}
  function route() {
    if (!S) return;
    const { page, arg, params } = parseHash();
    document.querySelectorAll('#nav a').forEach((a) => a.classList.toggle('on', a.dataset.page === page || (page === 'i' && a.dataset.page === 'instances')));
    const main = clear(document.getElementById('main'));
    current = { page, arg, params };
    try {
      if (page === 'instances') renderInstances(main, params);
      else if (page === 'i') renderInstance(main, arg, params);
      else if (page === 'compare') renderCompare(main, params);
      else renderOverview(main);
    } catch (e) {
      main.appendChild(h('div', { class: 'error-box', text: 'This page could not be drawn: ' + e.message }));
      throw e;
    }
  }

  // ---------- start ----------
  SR.summary = function (data) {
    const first = !S;
    const changed = !S || S.stamp !== data.stamp;
    S = data;
    if (!changed) { showLive(); return; }
    D = derive();
    document.title = (S.title ? S.title + ' — ' : '') + 'swebench-run report';
    const foot = clear(document.getElementById('foot'));
    append(foot, ['Generated ', S.generated, ' by ', S.tool, '. ',
      S.search ? 'Search index: ' + fmtInt(S.search.terms) + ' terms in ' + S.search.shards.length + ' shards, ' + (S.search.bytes / 1048576).toFixed(1) + ' MB, loaded per query. ' : '',
      'Keys: ', h('span', { class: 'kbd', text: '/' }), ' search, ', h('span', { class: 'kbd', text: 'j' }), ' ', h('span', { class: 'kbd', text: 'k' }), ' move, ', h('span', { class: 'kbd', text: '↵' }), ' open, ', h('span', { class: 'kbd', text: 'Esc' }), ' back.']);
    showLive();
    if (first) {
      window.addEventListener('hashchange', route);
      document.addEventListener('keydown', onKey);
      if (S.live) setInterval(poll, 3000);
      route();
    } else {
      rerender();
    }
  };
  function showLive() {
    const el = document.getElementById('live');
    if (!S.live) return;
    el.hidden = false;
    el.textContent = 'live · read ' + new Date().toLocaleTimeString();
  }
  function poll() {
    const src = 'data/summary.js?t=' + Date.now();
    loadScript(src).catch(() => {}).finally(() => scripts.delete(src));
  }
  function rerender() {
    // Keep the reader's place: the instance page only changes when its own row did.
    if (current && current.page === 'i') {
      const el = document.querySelector('[data-k="inst-stamp"]');
      if (el && el.dataset.v === rowStamp(current.arg)) return;
    }
    const y = window.scrollY;
    route();
    window.scrollTo(0, y);
  }
  function rowStamp(id) {
    const i = D.idIndex.get(id);
    if (i === undefined) return '';
    return S.runs.map((r) => r.cells.v[i] + ':' + num(r.cells.s, i) + ':' + r.cells.x[i]).join('|');
  }

  // ---------- overview ----------
  function inputCells(k) { return S.inputs[k].runs.map((r) => S.runs[r]); }
  function verdictCounts(k) {
    const c = { R: 0, U: 0, E: 0, P: 0, N: 0 };
    for (const run of inputCells(k)) for (const ch of run.cells.v) if (ch !== '.') c[ch]++;
    return c;
  }
  function renderOverview(main) {
    const C = S.compare;
    main.appendChild(h('div', { class: 'head' },
      h('div', null, h('h1', { text: S.title || 'Report' }),
        h('div', { class: 'sub' }, fmtInt(S.ids.length) + ' instances · ' + C.inputs.length + (C.inputs.length === 1 ? ' input' : ' inputs') + ' · ' + S.runs.length + (S.runs.length === 1 ? ' run' : ' runs') + (S.live ? ' · live' : ''))),
      h('div', { class: 'hint' }, 'Intervals at ' + fmtPct(C.confidence_level, 0) + '.')));
    const warns = S.warnings.concat(...S.runs.map((r) => r.warnings.map((w) => r.label + ': ' + w)));
    if (warns.length) {
      main.appendChild(h('details', { class: 'warnings' }, h('summary', { text: warns.length + (warns.length === 1 ? ' warning' : ' warnings') }),
        h('ul', null, warns.map((w) => h('li', { text: w })))));
    }
    if (multi()) {
      for (const ds of C.datasets) {
        main.appendChild(h('h2', { class: 'dataset-head', 'data-dataset': ds.name }, 'Dataset ' + dsTitle(ds.name), h('small', { text: datasetNote(ds) })));
        const cards = h('div', { class: 'grid cards' });
        C.inputs.forEach((inp, k) => { if (inp.dataset === ds.name) cards.appendChild(inputCard(inp, k)); });
        main.appendChild(cards);
      }
    } else {
      const cards = h('div', { class: 'grid cards' });
      C.inputs.forEach((inp, k) => cards.appendChild(inputCard(inp, k)));
      main.appendChild(cards);
    }
    if (C.gate || (C.pairs && C.pairs.length)) main.appendChild(pairsTable());
    if (C.pooled || C.variants) main.appendChild(pooledCard());
    const charts = h('div', { class: 'grid charts' });
    charts.appendChild(chartCard('Resolved vs. cost', 'mean cost per instance; line: Pareto frontier', chartCost()));
    charts.appendChild(chartCard('Outcomes', 'verdicts and exit statuses', chartStatus()));
    charts.appendChild(chartCard('Resolved per repository', 'share of covered instances', chartRepos()));
    charts.appendChild(chartCard('Steps per instance', 'model calls, last attempt', chartHist('s', (v) => fmtInt(v), 'steps')));
    charts.appendChild(chartCard('Cost per instance', 'all attempts', chartHist('c', fmtCost, 'cost')));
    if (S.trend && S.trend.length) charts.appendChild(chartCard('Nightly trend', 'resolved rate per night and variant', chartTrend()));
    main.appendChild(charts);
    if (S.runs.length > S.compare.inputs.length) main.appendChild(runsTable());
  }
  function kv(list) {
    const dl = h('dl', { class: 'kv' });
    for (const [label, value, key] of list) {
      if (value === null || value === undefined) continue;
      dl.appendChild(h('dt', { text: label }));
      dl.appendChild(h('dd', { 'data-k': key, text: value }));
    }
    return dl;
  }
  function tile(label, value, key, sub, cls) {
    return h('div', { class: 'tile' + (cls ? ' ' + cls : '') }, h('div', { class: 'l', text: label }), h('div', { class: 'v', 'data-k': key, text: value }), sub ? h('div', { class: 's' }, sub) : null);
  }
  function inputCard(inp, k) {
    const X = S.inputs[k];
    const runs = inputCells(k);
    const first = runs[0] || {};
    const m = inp.metrics || {};
    const vc = verdictCounts(k);
    const layouts = layoutName(first.report_layouts);
    const dsMeta = multi() ? dsTitle(inp.dataset) + (first.dataset && first.dataset !== inp.dataset ? ' (' + first.dataset + ')' : '') : first.dataset;
    const meta = [first.model, dsMeta, runs.length > 1 ? runs.length + ' repeats' : kindName(first.kind) + (layouts ? ' (' + layouts + ')' : '')].filter(Boolean).join(' · ');
    const card = h('div', { class: 'card input-card', 'data-input': k },
      h('div', { class: 'card-top' },
        h('div', null, h('div', { class: 'name' }, h('span', { class: 'swatch', style: { background: icolor(k) } }), h('span', { 'data-k': 'name', text: inp.name })),
          h('div', { class: 'meta', text: meta })),
        h('a', { href: '#/instances?input=' + k, text: fmtInt(inp.instances) + ' instances →' })));
    const resolvedText = Number.isInteger(inp.resolved) ? fmtInt(inp.resolved) : inp.resolved.toFixed(2);
    const tiles = h('div', { class: 'tiles' });
    tiles.appendChild(h('div', { class: 'tile main' }, h('div', { class: 'l', text: 'Resolved' }),
      h('div', { class: 'v', 'data-k': 'rate', text: fmtPct(inp.resolved_rate) }),
      h('div', { class: 's' }, h('b', { 'data-k': 'resolved', text: resolvedText }), ' of ', h('span', { 'data-k': 'covered', text: fmtInt(inp.covered) }), ' with an outcome'),
      X.ci_low !== undefined ? h('div', { class: 's', title: X.ci_method }, fmtPct(S.compare.confidence_level, 0) + ' CI ', h('span', { 'data-k': 'ci', text: '[' + fmtPct(X.ci_low) + ', ' + fmtPct(X.ci_high) + ']' })) : null));
    tiles.appendChild(tile('Submitted', fmtInt(X.submitted), 'submitted', 'non-empty patch' + (vc.P ? ' · ' + fmtInt(vc.P) + ' empty' : '') + (vc.N ? ' · ' + fmtInt(vc.N) + ' not submitted' : '')));
    // Each figure is over the instances whose value is known: "over 3 of 100" when some are not.
    const noneKnown = (d) => h('span', { 'data-k': 'unknown', text: 'not known for any of the ' + fmtInt(d.of) + ' instances' });
    if (m.cost) {
      tiles.appendChild(tile('Cost', fmtCost(m.cost.total), 'cost', m.cost.n ? [h('span', { 'data-k': 'cost-mean', text: fmtCost(m.cost.mean) }), ' mean · ' + fmtCost(m.cost.median) + ' median', h('span', { 'data-k': 'cost-over', text: over(m.cost) })] : noneKnown(m.cost)));
      tiles.appendChild(tile('Cost per resolved', m.cost_per_resolved !== undefined ? fmtCost(m.cost_per_resolved) : '–', 'cost-per-resolved', !m.cost.n ? 'no cost known' : m.cost.n < m.cost.of ? 'known cost ÷ resolved among those ' + fmtInt(m.cost.n) : 'total cost ÷ resolved'));
    }
    if (m.tokens) tiles.appendChild(tile('Tokens', m.tokens.n ? fmtTok(m.tokens.input + m.tokens.output) : '–', 'tokens', m.tokens.n ? fmtTok(m.tokens.input) + ' in · ' + fmtTok(m.tokens.output) + ' out' + over(m.tokens) : noneKnown(m.tokens)));
    if (m.steps) tiles.appendChild(tile('Steps', m.steps.n ? m.steps.mean.toFixed(1) : '–', 'steps', m.steps.n ? ['mean · ', h('span', { 'data-k': 'steps-median', text: fmtInt(m.steps.median) }), ' median · ', h('span', { 'data-k': 'steps-total', text: fmtInt(m.steps.total) }), ' total', h('span', { 'data-k': 'steps-over', text: over(m.steps) })] : noneKnown(m.steps)));
    if (m.duration_seconds && m.duration_seconds.n) tiles.appendChild(tile('Duration', fmtDur(m.duration_seconds.total), 'duration', fmtDur(m.duration_seconds.median) + ' median per instance' + over(m.duration_seconds)));
    if (inp.pass_k) tiles.appendChild(tile('pass@' + inp.pass_k.k, fmtPct(inp.pass_k.pass_at_k), 'passk', 'pass^' + inp.pass_k.k + ' ' + fmtPct(inp.pass_k.pass_hat_k)));
    const flaky = (inp.flaky || []).length + (inp.flaky_history || []).length;
    if (flaky) tiles.appendChild(tile('Flaky', fmtInt(flaky), 'flaky', 'left out of paired figures', 'warnt'));
    const failures = [], unfinished = [];
    for (const run of runs) {
      for (const f of run.failures) failures.push([run, f]);
      for (const id of run.unfinished) unfinished.push([run, id]);
    }
    if (failures.length || runs.some((r) => r.kind === 'run_dir' || r.kind === 'sweep_cell')) tiles.appendChild(tile('Infrastructure failures', fmtInt(failures.length), 'failures', failures.length ? 'retried when resumed' : 'none', failures.length ? 'badt' : ''));
    card.appendChild(tiles);
    const total = VORDER.split('').reduce((a, v) => a + vc[v], 0) || 1;
    card.appendChild(h('div', { class: 'bar', title: 'verdicts' }, VORDER.split('').map((v) => vc[v] ? h('span', { style: { width: (100 * vc[v] / total) + '%', background: VCOLOR[v] }, title: VERDICTS[v] + ': ' + vc[v] }) : null)));
    const statuses = Object.entries(inp.exit_statuses || {}).sort((a, b) => b[1] - a[1]);
    card.appendChild(h('div', { class: 'legend' }, VORDER.split('').filter((v) => vc[v]).map((v) => h('a', { href: '#/instances?' + new URLSearchParams({ verdict: v, input: String(k) }) }, h('i', { style: { background: VCOLOR[v] } }), VERDICTS[v] + ' ', h('b', { 'data-k': 'v-' + v, text: fmtInt(vc[v]) }))),
      statuses.length ? h('span', { class: 'sep', text: 'exit status:' }) : null,
      statuses.map(([st, n]) => h('a', { href: '#/instances?' + new URLSearchParams({ status: st, input: String(k) }), 'data-k': 'status-' + st }, st + ' ' + fmtInt(n)))));
    if (failures.length) {
      card.appendChild(h('details', { class: 'failures' }, h('summary', { text: failures.length + ' infrastructure ' + (failures.length === 1 ? 'failure' : 'failures') + ' with their reasons' }),
        h('ul', null, failures.slice(0, 200).map(([run, f]) => h('li', null, h('a', { href: instHref(f.instance_id, run), class: 'mono', text: f.instance_id }), ' ', h('b', { text: f.exit_status }), ' after ' + f.attempts + ' attempt' + (f.attempts === 1 ? '' : 's') + ': ', f.error)))));
    }
    if (unfinished.length) {
      card.appendChild(h('details', { class: 'failures' }, h('summary', { text: unfinished.length + ' cut by the run\'s budget (unfinished)' }),
        h('ul', null, unfinished.slice(0, 200).map(([run, id]) => h('li', null, h('a', { href: instHref(id, run), class: 'mono', text: id }))))));
    }
    return card;
  }
  function kindName(k) {
    return { run_dir: 'swebench-run output', sweep_cell: 'sweep cell', mini_swe_agent: 'mini-swe-agent output', harness_report: 'harness run report', sbcli_report: 'sb-cli report', report_dir: 'report.json folder', experiments_results: 'experiments results.json', family_report: 'harness verdicts' }[k] || k;
  }
  function instHref(id, run, extra) {
    const r = typeof run === 'number' ? run : S.runs.indexOf(run);
    return '#/i/' + encodeURIComponent(id) + '?' + new URLSearchParams(Object.assign({ r: String(r) }, extra || {}));
  }
  function datasetNote(ds) {
    const revs = (ds.revisions || []).map((r) => r.startsWith('sha256:') ? 'sha256:' + r.slice(7, 19) : r.slice(0, 12));
    return [ds.dataset && ds.dataset !== ds.name ? ds.dataset : '', revs.length ? (revs.length > 1 ? 'revisions ' : 'revision ') + revs.join(', ') : '',
      fmtInt(ds.instances) + ' instances', ds.inputs.length + (ds.inputs.length === 1 ? ' input' : ' inputs')].filter(Boolean).join(' · ');
  }
  function pairsTable() {
    const C = S.compare;
    const card = h('div', { class: 'card section' }, h('h2', { text: C.gate ? 'Against the baseline ' + C.gate.baseline : 'Paired differences' }));
    const several = multi();
    const heads = ['B vs A', 'common', 'rate A', 'rate B', 'difference', 'CI', 'McNemar p', 'newly resolved', 'regressed', 'flaky'];
    if (several) heads.splice(1, 0, 'dataset');
    const t = h('table', null, h('thead', null, h('tr', null, heads.map((x, i) => h('th', { class: i && x !== 'dataset' ? 'num' : '', text: x })))));
    const tb = h('tbody');
    (C.pairs || []).forEach((p, n) => {
      tb.appendChild(h('tr', { 'data-pair': n },
        h('td', null, h('a', { href: '#/compare?pair=' + n, text: p.b + ' vs ' + p.a })),
        several ? h('td', { 'data-k': 'dataset', text: dsTitle(p.dataset) }) : null,
        h('td', { class: 'num', text: fmtInt(p.common) }),
        h('td', { class: 'num', text: fmtPct(p.rate_a) }),
        h('td', { class: 'num', text: fmtPct(p.rate_b) }),
        h('td', { class: 'num ' + (p.difference > 0 ? 'pos' : p.difference < 0 ? 'neg' : ''), 'data-k': 'difference', text: p.difference !== undefined ? fmtPts(p.difference) + ' pts' : 'n/a' }),
        h('td', { class: 'num', 'data-k': 'pair-ci', text: p.ci_low !== undefined ? '[' + fmtPts(p.ci_low) + ', ' + fmtPts(p.ci_high) + ']' : '–' }),
        h('td', { class: 'num', 'data-k': 'mcnemar', text: fmtP(p.mcnemar_p) }),
        h('td', { class: 'num pos', text: fmtInt(p.newly_resolved.length) }),
        h('td', { class: 'num neg', text: fmtInt(p.regressed.length) }),
        h('td', { class: 'num', text: fmtInt(p.flaky.length) })));
    });
    t.appendChild(tb);
    card.appendChild(t);
    if (C.gate) for (const v of C.gate.verdicts) card.appendChild(h('div', { class: gateClass(v), 'data-dataset': v.dataset, text: gateText(v) }));
    if (C.gate) for (const po of C.pooled || []) card.appendChild(h('div', { class: 'gate pooled', text: po.b + ' vs ' + po.a + ' pooled (not gated): ' + po.line }));
    return card;
  }
  // pooledCard: each input over its datasets, and each pair pooled over the datasets both are on.
  function pooledCard() {
    const C = S.compare;
    const card = h('div', { class: 'card section pooled-card' }, h('h2', { text: 'Over ' + C.datasets.length + ' datasets' }),
      h('p', { class: 'hint', text: 'Pairs are formed within each dataset, never across. By instance: every instance weighs alike; macro: every dataset alike. ' + C.methods.pooled + '.' }));
    if ((C.variants || []).length) {
      card.appendChild(h('table', { class: 'variants' }, h('thead', null, h('tr', null, ['input', 'datasets', 'covered', 'resolved', 'rate by instance', 'macro rate'].map((x, i) => h('th', { class: i > 1 ? 'num' : '', text: x })))),
        h('tbody', null, C.variants.map((v) => h('tr', { 'data-variant': v.name }, h('td', { text: v.name }), h('td', { text: v.datasets.join(', ') }), h('td', { class: 'num', text: fmtInt(v.covered) }),
          h('td', { class: 'num', text: +v.resolved.toFixed(2) }), h('td', { class: 'num', 'data-k': 'rate', text: fmtPct(v.resolved_rate) }), h('td', { class: 'num', 'data-k': 'macro-rate', text: fmtPct(v.macro_resolved_rate) }))))));
    }
    if ((C.pooled || []).length) {
      const est = (e, b) => b ? fmtPts(b.difference) + ' [' + fmtPts(b.ci_low) + ', ' + fmtPts(b.ci_high) + ']' : e ? fmtPts(e.difference) + ' [' + fmtPts(e.ci_low) + ', ' + fmtPts(e.ci_high) + ']' : 'n/a';
      card.appendChild(h('table', { class: 'pooled' }, h('thead', null, h('tr', null, ['B vs A', 'datasets', 'paired', 'rate A', 'rate B', 'newly', 'regressed', 'flaky', 'by instance (CI)', 'macro (CI)', 'McNemar p, pooled'].map((x, i) => h('th', { class: i > 1 ? 'num' : '', text: x })))),
        h('tbody', null, C.pooled.map((po) => h('tr', { 'data-pooled': po.b + ' vs ' + po.a }, h('td', { text: po.b + ' vs ' + po.a }), h('td', { text: po.datasets.join(', ') }), h('td', { class: 'num', text: fmtInt(po.paired) }),
          h('td', { class: 'num', text: fmtPct(po.rate_a) }), h('td', { class: 'num', text: fmtPct(po.rate_b) }), h('td', { class: 'num pos', text: fmtInt(po.newly_resolved) }), h('td', { class: 'num neg', text: fmtInt(po.regressed) }),
          h('td', { class: 'num', text: fmtInt(po.flaky) }), h('td', { class: 'num', 'data-k': 'by-instance', text: est(po.by_instance, po.bootstrap && po.bootstrap.by_instance) }),
          h('td', { class: 'num', 'data-k': 'macro', text: est(po.macro, po.bootstrap && po.bootstrap.macro) }), h('td', { class: 'num', 'data-k': 'pooled-p', text: fmtP(po.mcnemar_p) }))))));
      if (C.pooled.some((po) => po.bootstrap)) card.appendChild(h('p', { class: 'hint', text: 'With repeats the differences are means over repeats with a bootstrap resampling instances within each dataset; the MOVER intervals of the single runs: ' + C.pooled.map((po) => po.b + ' vs ' + po.a + ' by instance ' + est(po.by_instance) + ', macro ' + est(po.macro)).join('; ') + '.' }));
    }
    return card;
  }
  function runsTable() {
    const card = h('div', { class: 'card section' }, h('h2', { text: 'Runs' }));
    const t = h('table', null, h('thead', null, h('tr', null, ['run', 'input', 'resolved', 'unresolved', 'error', 'empty', 'not submitted', 'cost'].map((x, i) => h('th', { class: i > 1 ? 'num' : '', text: x })))));
    const tb = h('tbody');
    S.runs.forEach((run, r) => {
      const c = { R: 0, U: 0, E: 0, P: 0, N: 0 };
      for (const ch of run.cells.v) if (ch !== '.') c[ch]++;
      // The cost of the instances whose cost is known, and over how many when not all.
      let sum = 0, known = 0, all = 0;
      if (run.cells.c) run.cells.c.forEach((x, i) => { if (run.cells.v[i] === '.') return; all++; if (x !== null) { known++; sum += x; } });
      const cost = known ? sum : NaN;
      tb.appendChild(h('tr', null, h('td', null, h('a', { href: '#/instances?cell=' + r, text: run.label })), h('td', { text: D.inputLabel[run.input] }),
        ...'RUEPN'.split('').map((v) => h('td', { class: 'num', text: fmtInt(c[v]) })), h('td', { class: 'num', text: fmtCost(cost) + over({ n: known, of: all }) })));
    });
    t.appendChild(tb);
    card.appendChild(t);
    return card;
  }

  // ---------- charts ----------
  function chartCard(title, note, body) {
    return h('div', { class: 'card chart' }, h('h3', null, title, h('small', { text: note })), body);
  }
  function niceTicks(lo, hi, n) {
    if (!(hi > lo)) { hi = lo + 1; }
    const span = hi - lo, step0 = span / Math.max(1, n);
    const mag = Math.pow(10, Math.floor(Math.log10(step0)));
    const err = step0 / mag;
    const step = (err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1) * mag;
    const ticks = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(+v.toPrecision(12));
    return ticks;
  }
  function empty(msg) { return h('p', { class: 'empty-note', text: msg }); }
  function chartCost() {
    const pts = [];
    S.compare.inputs.forEach((inp, k) => {
      const m = inp.metrics || {};
      if (m.cost && m.cost.n) pts.push({ k, name: D.inputLabel[k], x: m.cost.mean, y: inp.resolved_rate, lo: S.inputs[k].ci_low, hi: S.inputs[k].ci_high });
    });
    if (!pts.length) return empty('No input records its cost.');
    const W = 520, H = 240, L = 48, R = 16, T = 12, B = 36;
    const xmax = Math.max(...pts.map((p) => p.x)) * 1.15 || 1;
    const ymax = Math.min(1, Math.max(...pts.map((p) => (p.hi !== undefined ? p.hi : p.y))) * 1.1 + 0.02);
    const X = (v) => L + (W - L - R) * v / xmax, Y = (v) => T + (H - T - B) * (1 - v / ymax);
    const g = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'resolved rate against mean cost per instance' });
    for (const t of niceTicks(0, ymax, 4)) { g.appendChild(s('line', { class: 'gridline', x1: L, x2: W - R, y1: Y(t), y2: Y(t) })); g.appendChild(s('text', { x: L - 6, y: Y(t) + 4, 'text-anchor': 'end', text: fmtPct(t, 0) })); }
    for (const t of niceTicks(0, xmax, 5)) { g.appendChild(s('line', { class: 'gridline', x1: X(t), x2: X(t), y1: T, y2: H - B })); g.appendChild(s('text', { x: X(t), y: H - B + 16, 'text-anchor': 'middle', text: fmtCost(t) })); }
    g.appendChild(s('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
    g.appendChild(s('text', { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle', text: 'mean cost per instance' }));
    // Pareto frontier: cheapest first, keep each point that beats every cheaper one.
    const sorted = pts.slice().sort((a, b) => a.x - b.x || b.y - a.y);
    const front = [];
    for (const p of sorted) if (!front.length || p.y > front[front.length - 1].y) front.push(p);
    if (front.length > 1) {
      let d = '';
      front.forEach((p, i) => { d += (i ? ` H${X(p.x)} V${Y(p.y)}` : `M${X(p.x)} ${Y(p.y)}`); });
      g.appendChild(s('path', { d, fill: 'none', stroke: 'var(--faint)', 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }));
    }
    for (const p of pts) {
      if (p.lo !== undefined) g.appendChild(s('line', { x1: X(p.x), x2: X(p.x), y1: Y(p.lo), y2: Y(p.hi), stroke: icolor(p.k), 'stroke-width': 2, opacity: 0.4 }));
      const onFront = front.includes(p);
      g.appendChild(s('circle', { cx: X(p.x), cy: Y(p.y), r: onFront ? 6 : 5, fill: icolor(p.k), stroke: onFront ? 'var(--fg)' : 'none', 'stroke-width': 1.5 }, s('title', { text: `${p.name}: ${fmtPct(p.y)} resolved, ${fmtCost(p.x)} per instance` })));
      const right = X(p.x) > L + (W - L - R) * 0.7;
      g.appendChild(s('text', { class: 'lbl', x: X(p.x) + (right ? -9 : 9), y: Y(p.y) - 7, 'text-anchor': right ? 'end' : 'start', text: p.name }));
    }
    return g;
  }
  function chartStatus() {
    const inputs = S.compare.inputs;
    const statusNames = new Set();
    inputs.forEach((inp) => Object.keys(inp.exit_statuses || {}).forEach((k) => statusNames.add(k)));
    const sn = [...statusNames].sort((a, b) => (b === 'Submitted') - (a === 'Submitted') || a.localeCompare(b));
    const scolor = (n, j) => n === 'Submitted' ? 'var(--ok)' : ['#bc4c00', '#8250df', '#cf222e', '#0a7b83', '#6e7781', '#bf3989', '#953800'][j % 7];
    const rowH = 22, W = 520, L = 130, R = 50;
    const rows = [];
    inputs.forEach((inp, k) => {
      rows.push({ label: D.inputLabel[k], kind: 'verdicts', parts: VORDER.split('').map((v) => [VERDICTS[v], verdictCounts(k)[v], VCOLOR[v]]) });
      if (sn.length) rows.push({ label: 'exit status', kind: 'status', parts: sn.map((n, j) => [n, (inp.exit_statuses || {})[n] || 0, scolor(n, j)]) });
    });
    const H = rows.length * (rowH + 8) + 8;
    const g = s('svg', { viewBox: `0 0 ${W} ${H}` });
    rows.forEach((row, n) => {
      const y = 6 + n * (rowH + 8);
      const total = row.parts.reduce((a, p) => a + p[1], 0);
      g.appendChild(s('text', { class: row.kind === 'verdicts' ? 'lbl' : '', x: L - 8, y: y + rowH / 2 + 4, 'text-anchor': 'end', text: trunc(row.label, 20) }));
      let x = L;
      for (const [name, c, col] of row.parts) {
        if (!c) continue;
        const w = (W - L - R) * c / (total || 1);
        g.appendChild(s('rect', { x, y, width: Math.max(w, 1), height: rowH, fill: col, rx: 2 }, s('title', { text: `${name}: ${c}` })));
        if (w > 26) g.appendChild(s('text', { x: x + w / 2, y: y + rowH / 2 + 4, 'text-anchor': 'middle', fill: '#fff', style: 'fill:#fff', text: String(c) }));
        x += w;
      }
      g.appendChild(s('text', { x: W - R + 6, y: y + rowH / 2 + 4, text: fmtInt(total) }));
    });
    const wrap = h('div', null, g);
    wrap.appendChild(h('div', { class: 'legend' }, VORDER.split('').map((v) => h('span', null, h('i', { style: { background: VCOLOR[v] } }), VERDICTS[v])),
      sn.map((n, j) => h('span', null, h('i', { style: { background: scolor(n, j) } }), n))));
    return wrap;
  }
  function trunc(t, n) { return t.length > n ? t.slice(0, n - 1) + '…' : t; }
  function chartRepos() {
    const inputs = S.compare.inputs;
    const repos = new Map();
    inputs.forEach((inp, k) => (inp.repos || []).forEach((r) => { if (!repos.has(r.repo)) repos.set(r.repo, []); repos.get(r.repo)[k] = r; }));
    if (!repos.size) return empty('No covered instance yet.');
    const names = [...repos.keys()].sort((a, b) => {
      const ca = repos.get(a).reduce((x, r) => x + (r ? r.covered : 0), 0), cb = repos.get(b).reduce((x, r) => x + (r ? r.covered : 0), 0);
      return cb - ca || a.localeCompare(b);
    });
    const n = inputs.length, barH = n > 1 ? 7 : 12, gap = 8, W = 520, L = 170, R = 64;
    const H = names.length * (n * barH + gap) + 24;
    const g = s('svg', { viewBox: `0 0 ${W} ${H}` });
    const X = (v) => L + (W - L - R) * v;
    for (const t of [0, 0.25, 0.5, 0.75, 1]) { g.appendChild(s('line', { class: 'gridline', x1: X(t), x2: X(t), y1: 0, y2: H - 20 })); g.appendChild(s('text', { x: X(t), y: H - 6, 'text-anchor': 'middle', text: fmtPct(t, 0) })); }
    names.forEach((name, j) => {
      const y0 = j * (n * barH + gap);
      g.appendChild(s('text', { class: 'lbl', x: L - 8, y: y0 + (n * barH) / 2 + 4, 'text-anchor': 'end', text: trunc(name, 26) }));
      inputs.forEach((inp, k) => {
        const r = repos.get(name)[k];
        if (!r || !r.covered) return;
        const rate = r.resolved / r.covered;
        g.appendChild(s('rect', { x: L, y: y0 + k * barH, width: X(1) - L, height: barH - 1, fill: 'var(--line2)', rx: 2 }));
        g.appendChild(s('rect', { x: L, y: y0 + k * barH, width: Math.max(1, X(rate) - L), height: barH - 1, fill: icolor(k), rx: 2 }, s('title', { text: `${D.inputLabel[k]} on ${name}: ${+r.resolved.toFixed(2)} of ${r.covered} (${fmtPct(rate)})` })));
        if (k === 0 || n === 1) g.appendChild(s('text', { x: W - R + 6, y: y0 + k * barH + barH - 1, text: `${+r.resolved.toFixed(1)}/${r.covered}` }));
      });
    });
    const wrap = h('div', null, g);
    if (n > 1) wrap.appendChild(legendInputs());
    return wrap;
  }
  function legendInputs() {
    return h('div', { class: 'legend' }, S.compare.inputs.map((inp, k) => h('span', null, h('i', { style: { background: icolor(k) } }), D.inputLabel[k])));
  }
  function chartHist(field, fmt, what) {
    const series = [];
    S.compare.inputs.forEach((inp, k) => {
      const vals = [];
      for (const run of inputCells(k)) {
        const a = run.cells[field];
        if (!a) continue;
        for (let i = 0; i < a.length; i++) if (run.cells.v[i] !== '.' && a[i] !== null && a[i] !== undefined) vals.push(a[i]);
      }
      if (vals.length) series.push({ k, vals });
    });
    if (!series.length) return empty('No input records its ' + what + '.');
    const all = series.flatMap((x) => x.vals);
    let hi = all.reduce((a, b) => Math.max(a, b), 0);
    const lo = 0;
    if (hi <= lo) hi = lo + 1;
    const nb = Math.min(30, Math.max(8, Math.ceil(Math.sqrt(all.length))));
    const ticks = niceTicks(lo, hi, nb);
    const step = ticks.length > 1 ? ticks[1] - ticks[0] : (hi - lo) / nb;
    const edges = [];
    for (let v = 0; v <= hi + step; v += step) edges.push(v);
    const bins = series.map((x) => {
      const c = new Array(edges.length - 1).fill(0);
      for (const v of x.vals) c[Math.min(c.length - 1, Math.floor((v - lo) / step))]++;
      return c;
    });
    const W = 520, H = 190, L = 40, R = 12, T = 10, B = 34;
    const ymax = Math.max(1, ...bins.flat());
    const X = (v) => L + (W - L - R) * (v - lo) / (edges[edges.length - 1] - lo), Y = (v) => T + (H - T - B) * (1 - v / ymax);
    const g = s('svg', { viewBox: `0 0 ${W} ${H}` });
    for (const t of niceTicks(0, ymax, 4)) { if (t !== Math.round(t)) continue; g.appendChild(s('line', { class: 'gridline', x1: L, x2: W - R, y1: Y(t), y2: Y(t) })); g.appendChild(s('text', { x: L - 6, y: Y(t) + 4, 'text-anchor': 'end', text: fmtInt(t) })); }
    const labelEvery = Math.ceil(edges.length / 7);
    edges.forEach((e, j) => { if (j % labelEvery === 0) g.appendChild(s('text', { x: X(e), y: H - B + 15, 'text-anchor': 'middle', text: fmt(e) })); });
    g.appendChild(s('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
    g.appendChild(s('text', { x: (L + W - R) / 2, y: H - 3, 'text-anchor': 'middle', text: what + ' per instance (count of instances)' }));
    bins.forEach((c, n) => {
      const col = icolor(series[n].k);
      if (series.length === 1) {
        c.forEach((v, j) => { if (v) g.appendChild(s('rect', { x: X(edges[j]) + 1, y: Y(v), width: Math.max(1, X(edges[j + 1]) - X(edges[j]) - 2), height: Y(0) - Y(v), fill: col, opacity: 0.85, rx: 1.5 }, s('title', { text: `${fmt(edges[j])}–${fmt(edges[j + 1])}: ${v}` }))); });
      } else {
        let d = `M${X(edges[0])} ${Y(0)}`;
        c.forEach((v, j) => { d += ` V${Y(v)} H${X(edges[j + 1])}`; });
        d += ` V${Y(0)}`;
        g.appendChild(s('path', { d, fill: col, 'fill-opacity': 0.12, stroke: col, 'stroke-width': 1.8 }));
      }
    });
    const wrap = h('div', null, g);
    const meds = series.map((x) => { const v = x.vals.slice().sort((a, b) => a - b); return [x.k, v[Math.floor((v.length - 1) / 2)], v[v.length - 1]]; });
    wrap.appendChild(h('div', { class: 'legend' }, meds.map(([k, med, mx]) => h('span', null, h('i', { style: { background: icolor(k) } }), D.inputLabel[k] + ': median ' + fmt(med) + ', max ' + fmt(mx)))));
    return wrap;
  }
  function chartTrend() {
    const tr = S.trend;
    const dates = [...new Set(tr.flatMap((v) => v.nights.map((n) => n.date)))].sort();
    const W = 520, H = 240, L = 44, R = 110, T = 12, B = 34;
    const ys = tr.flatMap((v) => v.nights.map((n) => n.resolved_rate));
    const ymin = Math.max(0, Math.min(...ys) - 0.05), ymax = Math.min(1, Math.max(...ys) + 0.05);
    const X = (d) => L + (W - L - R) * (dates.length > 1 ? dates.indexOf(d) / (dates.length - 1) : 0.5), Y = (v) => T + (H - T - B) * (1 - (v - ymin) / ((ymax - ymin) || 1));
    const g = s('svg', { viewBox: `0 0 ${W} ${H}` });
    for (const t of niceTicks(ymin, ymax, 4)) { g.appendChild(s('line', { class: 'gridline', x1: L, x2: W - R, y1: Y(t), y2: Y(t) })); g.appendChild(s('text', { x: L - 6, y: Y(t) + 4, 'text-anchor': 'end', text: fmtPct(t, 0) })); }
    const every = Math.ceil(dates.length / 6);
    dates.forEach((d, j) => { if (j % every === 0 || j === dates.length - 1) g.appendChild(s('text', { x: X(d), y: H - B + 16, 'text-anchor': 'middle', text: d.slice(5) })); });
    const trendName = (v) => tr.some((x) => x.dataset !== tr[0].dataset) ? v.variant + ' on ' + dsTitle(v.dataset) : v.variant;
    tr.forEach((v, k) => {
      const col = color(k);
      const pts = v.nights.map((n) => [X(n.date), Y(n.resolved_rate), n]);
      g.appendChild(s('polyline', { points: pts.map((p) => p[0] + ',' + p[1]).join(' '), fill: 'none', stroke: col, 'stroke-width': 2 }));
      for (const [x, y, n] of pts) g.appendChild(s('circle', { cx: x, cy: y, r: 3.5, fill: col }, s('title', { text: `${trendName(v)} ${n.date}: ${fmtPct(n.resolved_rate)} (${n.resolved}/${n.evaluated}), ${fmtCost(n.cost)}` })));
      const last = pts[pts.length - 1];
      if (last) g.appendChild(s('text', { class: 'lbl', x: last[0] + 8, y: last[1] + 4, text: trunc(trendName(v), 16) + (v.change !== undefined ? ' ' + fmtPts(v.change) : '') }));
    });
    const wrap = h('div', null, g);
    const changes = tr.flatMap((v) => v.changes.map((c) => trendName(v) + ': ' + c));
    if (changes.length) wrap.appendChild(h('div', { class: 'note', text: 'Not comparable across: ' + changes.join('; ') }));
    return wrap;
  }

  // ---------- instances ----------
  const listState = { rows: [], sel: -1, shown: 0 };
  function filterParams(params) {
    const f = {};
    for (const k of ['q', 'verdict', 'status', 'repo', 'cell', 'input', 'flaky', 'flagged', 'flip', 'env', 'sort', 'dir']) f[k] = params.get(k) || '';
    return f;
  }
  function renderInstances(main, params) {
    const f = filterParams(params);
    main.appendChild(h('div', { class: 'head' }, h('div', null, h('h1', { text: 'Instances' }),
      h('div', { class: 'sub', text: 'Search ids, problem statements and what happened in the trajectories (every word must occur; words match as prefixes).' }))));
    const bar = h('div', { class: 'toolbar' });
    const q = h('input', { type: 'search', id: 'q', placeholder: 'Search…  (press / )', value: f.q, autocomplete: 'off', spellcheck: 'false' });
    bar.appendChild(q);
    const sel = (name, label, options) => {
      const e = h('select', { id: 'f-' + name, 'data-f': name, 'aria-label': label }, options.map(([v, t]) => h('option', { value: v, text: t })));
      e.value = f[name] || '';
      e.addEventListener('change', () => update({ [name]: e.value }));
      bar.appendChild(h('label', null, label, e));
      return e;
    };
    sel('verdict', 'Verdict', [['', 'any'], ['R', 'resolved'], ['notR', 'not resolved'], ['U', 'unresolved'], ['E', 'error'], ['P', 'empty patch'], ['N', 'not submitted']]);
    sel('status', 'Exit status', [['', 'any']].concat(S.statuses.map((x) => [x, x])));
    sel('repo', 'Repository', [['', 'any']].concat(S.repos.map((x, i) => [String(i), x]).sort((a, b) => a[1].localeCompare(b[1]))));
    if (S.runs.length > 1) {
      if (S.compare.inputs.length > 1 && S.compare.inputs.length < S.runs.length) sel('input', 'Input', [['', 'any']].concat(S.compare.inputs.map((x, k) => [String(k), D.inputLabel[k]])));
      sel('cell', S.compare.inputs.length < S.runs.length ? 'Cell' : 'Run', [['', 'any']].concat(S.runs.map((x, r) => [String(r), x.label])));
    } else if (S.compare.inputs.length > 1) sel('input', 'Input', [['', 'any']].concat(S.compare.inputs.map((x, k) => [String(k), D.inputLabel[k]])));
    if (S.flaky.length) sel('flaky', 'Flaky', [['', 'any'], ['1', 'flaky only'], ['0', 'stable only']]);
    if (S.runs.some((x) => x.cells.f.some((n) => n & 8))) sel('flagged', 'Flags', [['', 'any'], ['1', 'flagged'], ['2', 'revealed'], ['0', 'not flagged']]);
    if (S.env) sel('env', 'Environment', [['', 'any'], ['broken', 'broken'], ['ok', 'ok'], ['gold_fails', 'gold fails'], ['empty_passes', 'empty passes'], ['flaky', 'flaky'], ['infrastructure', 'infrastructure'], ['known_bad', 'known bad'], ['none', 'not validated']]);
    if ((S.compare.pairs || []).length) sel('flip', S.compare.gate ? 'Flipped vs. baseline' : 'Flipped', [['', 'any'], ['any', 'flipped'], ['up', 'newly resolved'], ['down', 'regressed']]);
    main.appendChild(bar);
    const count = h('p', { class: 'count', id: 'count' }, 'Filtering…');
    main.appendChild(count);
    const runsCol = S.runs.length > 1;
    const cols = [['id', 'Instance', ''], ['repo', 'Repository', '']];
    if (runsCol) cols.push(['run', S.compare.inputs.length < S.runs.length ? 'Cell' : 'Run', '']);
    cols.push(['verdict', 'Verdict', ''], ['status', 'Exit status', '']);
    if (S.runs.some((x) => x.cells.s)) cols.push(['steps', 'Steps', 'num']);
    if (S.runs.some((x) => x.cells.c)) cols.push(['cost', 'Cost', 'num']);
    if (S.runs.some((x) => x.cells.t)) cols.push(['time', 'Time', 'num']);
    if (S.runs.some((x) => x.cells.a && x.cells.a.some((n) => n > 1))) cols.push(['attempts', 'Attempts', 'num']);
    cols.push(['flags', '', '']);
    listState.cols = cols.map((x) => x[0]);
    const thead = h('thead', null, h('tr', null, cols.map(([k, label, cls]) => {
      const sortable = k !== 'flags';
      const th = h('th', { class: [cls, sortable ? 'sort' : '', f.sort === k || (!f.sort && k === 'id') ? 'sorted' + ((f.dir || (k === 'id' || !f.sort ? 'asc' : 'desc')) === 'asc' ? ' asc' : '') : ''].join(' '), 'data-sort': k, text: label });
      if (sortable) th.addEventListener('click', () => {
        const same = (f.sort || 'id') === k;
        const defDir = ['id', 'repo', 'run', 'verdict', 'status'].includes(k) ? 'asc' : 'desc';
        update({ sort: k, dir: same ? ((f.dir || defDir) === 'asc' ? 'desc' : 'asc') : defDir });
      });
      return th;
    })));
    const tbody = h('tbody', { id: 'rows' });
    const tbl = h('div', { class: 'tbl' }, h('table', { id: 'instances' }, thead, tbody));
    main.appendChild(tbl);
    const more = h('div', { class: 'more', id: 'more' });
    main.appendChild(more);
    let timer = 0;
    q.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => update({ q: q.value }, true), 180); });
    q.addEventListener('keydown', (e) => { if (e.key === 'Enter') { clearTimeout(timer); update({ q: q.value }, true); q.blur(); } });
    function update(change, replace) {
      const next = Object.assign({}, f, change);
      if (replace) history.replaceState(null, '', hashFor(next)); else location.hash = hashFor(next);
      if (replace) { Object.assign(f, next); apply(); }
    }
    function hashFor(x) {
      const p = new URLSearchParams(Object.entries(x).filter(([, v]) => v !== ''));
      const qs = p.toString();
      return '#/instances' + (qs ? '?' + qs : '');
    }
    const token = {};
    listState.token = token;
    async function apply() {
      count.textContent = f.q ? 'Searching…' : 'Filtering…';
      let match = null;
      if (f.q) {
        try { match = await searchMatch(f.q); } catch (e) { count.textContent = 'Search failed: ' + e.message; return; }
      }
      if (listState.token !== token) return;
      const rows = filterRows(f, match);
      sortRows(rows, f.sort || 'id', f.dir || (!f.sort || ['id', 'repo', 'run', 'verdict', 'status'].includes(f.sort) ? 'asc' : 'desc'));
      listState.rows = rows;
      lastListQuery = hashFor(f).replace(/^#\/instances\??/, '');
      listState.shown = 0;
      listState.sel = -1;
      clear(tbody);
      clear(count);
      append(count, ['Showing ', h('b', { id: 'shown-count', text: fmtInt(rows.length) }), ' of ' + fmtInt(D.rows.length) + (runsCol ? ' rows (instance × run)' : ' instances'),
        f.q && !S.search && !S.live ? ' — this report has no search index: ids only' : '']);
      showMore();
    }
    function showMore() {
      const end = Math.min(listState.rows.length, listState.shown + PAGE_ROWS);
      const frag = document.createDocumentFragment();
      for (let n = listState.shown; n < end; n++) frag.appendChild(rowEl(listState.rows[n], n, runsCol));
      tbody.appendChild(frag);
      listState.shown = end;
      more.textContent = end < listState.rows.length ? 'Scroll for more (' + fmtInt(listState.rows.length - end) + ' left)' : '';
    }
    listState.showMore = showMore;
    listState.tbody = tbody;
    const io = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting) && listState.shown < listState.rows.length) showMore(); }, { rootMargin: '400px' });
    io.observe(more);
    apply();
  }
  function filterRows(f, match) {
    const ql = f.q.trim().toLowerCase();
    // A query without spaces that is part of instance ids finds those instances only.
    const idOnly = ql !== '' && !/\s/.test(ql) && S.ids.some((id) => id.toLowerCase().includes(ql));
    const out = [];
    for (const row of D.rows) {
      const [r, i] = row;
      const run = S.runs[r];
      const v = run.cells.v[i];
      if (f.verdict) { if (f.verdict === 'notR' ? v === 'R' : v !== f.verdict) continue; }
      if (f.status && S.statuses[run.cells.x[i]] !== f.status) continue;
      if (f.repo && String(S.repo[i]) !== f.repo) continue;
      if (f.cell && String(r) !== f.cell) continue;
      if (f.input && String(run.input) !== f.input) continue;
      if (f.flaky === '1' && !D.flaky[i]) continue;
      if (f.flaky === '0' && D.flaky[i]) continue;
      if (f.flagged === '1' && !(run.cells.f[i] & 8)) continue;
      if (f.flagged === '2' && !(run.cells.f[i] & 16)) continue;
      if (f.flagged === '0' && run.cells.f[i] & 8) continue;
      if (f.env && !envMatch(f.env, S.env ? S.env[i] : '')) continue;
      if (f.flip) {
        const fl = D.flipAny[i];
        if (f.flip === 'any' && !fl) continue;
        if (f.flip === 'up' && fl !== 1 && fl !== 2) continue;
        if (f.flip === 'down' && fl !== -1 && fl !== 2) continue;
      }
      if (ql && !(S.ids[i].toLowerCase().includes(ql) || (!idOnly && match && match(r, i)))) continue;
      out.push(row);
    }
    return out;
  }
  // The environment filter: an outcome, "broken" (gold fails, empty passes, infrastructure,
  // known bad) or "none" (not validated).
  function envMatch(want, got) {
    if (want === 'none') return !got;
    if (want === 'broken') return ['gold_fails', 'empty_passes', 'infrastructure', 'known_bad'].includes(got);
    return got === want;
  }
  function envBadge(i) {
    const o = S.env ? S.env[i] : '';
    if (!o || o === 'ok') return null;
    return h('span', { class: 'flag env', 'data-k': 'env', 'data-v': o, title: 'environment: ' + (S.env_why[S.ids[i]] || o.replace(/_/g, ' ')), text: '⚙' });
  }
  function sortRows(rows, key, dir) {
    const sign = dir === 'asc' ? 1 : -1;
    const val = {
      id: ([, i]) => S.ids[i], repo: ([, i]) => S.repos[S.repo[i]], run: ([r]) => r,
      verdict: ([r, i]) => VORDER.indexOf(S.runs[r].cells.v[i]), status: ([r, i]) => S.statuses[S.runs[r].cells.x[i]] || '',
      steps: ([r, i]) => num(S.runs[r].cells.s, i), cost: ([r, i]) => num(S.runs[r].cells.c, i), time: ([r, i]) => num(S.runs[r].cells.t, i),
      attempts: ([r, i]) => num(S.runs[r].cells.a, i),
    }[key] || ((x) => S.ids[x[1]]);
    const keyed = rows.map((row) => [val(row), row]);
    keyed.sort((a, b) => {
      const x = a[0], y = b[0];
      const nx = typeof x === 'number' && Number.isNaN(x), ny = typeof y === 'number' && Number.isNaN(y);
      if (nx || ny) return nx === ny ? cmpTie(a[1], b[1]) : nx ? 1 : -1; // unknown values last
      if (x < y) return -sign;
      if (x > y) return sign;
      return cmpTie(a[1], b[1]);
    });
    keyed.forEach((k, n) => { rows[n] = k[1]; });
  }
  function cmpTie(a, b) { return S.ids[a[1]] < S.ids[b[1]] ? -1 : S.ids[a[1]] > S.ids[b[1]] ? 1 : a[0] - b[0]; }
  function rowEl([r, i], n, runsCol) {
    const run = S.runs[r], c = run.cells;
    const fl = D.flipAny[i];
    const tr = h('tr', { 'data-n': n, 'data-id': S.ids[i], 'data-run': r, onclick: (e) => { if (!e.target.closest('a')) location.hash = instHref(S.ids[i], r); } },
      h('td', { class: 'id' }, h('a', { href: instHref(S.ids[i], r), text: S.ids[i] })),
      h('td', { class: 'status', text: S.repos[S.repo[i]] }),
      runsCol ? h('td', { class: 'status', text: run.label }) : null,
      h('td', { 'data-k': 'verdict' }, badge(c.v[i])),
      h('td', { class: 'status', 'data-k': 'status', text: S.statuses[c.x[i]] || (c.d[i] >= 0 ? S.details[c.d[i]] : '') }),
      listState.cols.includes('steps') ? h('td', { class: 'num', 'data-k': 'steps', text: c.s ? fmtInt(num(c.s, i)) : '' }) : null,
      listState.cols.includes('cost') ? h('td', { class: 'num', 'data-k': 'cost', 'data-v': c.c ? num(c.c, i) : '', text: c.c ? fmtCost(num(c.c, i)) : '' }) : null,
      listState.cols.includes('time') ? h('td', { class: 'num', 'data-k': 'time', text: c.t ? fmtDur(num(c.t, i)) : '' }) : null,
      listState.cols.includes('attempts') ? h('td', { class: 'num', 'data-k': 'attempts', text: c.a ? fmtInt(num(c.a, i)) : '' }) : null,
      h('td', null, c.f[i] & 8 ? h('span', { class: 'flag leak' + (c.f[i] & 16 ? ' revealed' : ''), 'data-k': 'flagged', title: c.f[i] & 16 ? 'flagged: a command reached beyond the task\'s start, and its output revealed something' : 'flagged: a command reached beyond the task\'s start (its output showed nothing)', text: c.f[i] & 16 ? '⚠' : '△' }) : null,
        D.flaky[i] ? h('span', { class: 'flag flaky', title: 'flaky: the verdict differs between repeats or nights', text: '⚑' }) : null,
        envBadge(i),
        fl === 1 || fl === 2 ? h('span', { class: 'flag up', title: 'newly resolved in a pair', text: '▲' }) : null,
        fl === -1 || fl === 2 ? h('span', { class: 'flag down', title: 'regressed in a pair', text: '▼' }) : null));
    return tr;
  }
  function selectRow(n) {
    const L = listState;
    if (!L.rows.length) return;
    n = Math.max(0, Math.min(L.rows.length - 1, n));
    while (n >= L.shown) L.showMore();
    const old = L.tbody.querySelector('tr.sel');
    if (old) old.classList.remove('sel');
    const tr = L.tbody.children[n];
    tr.classList.add('sel');
    tr.scrollIntoView({ block: 'nearest' });
    L.sel = n;
  }

  // ---------- one instance ----------
  function renderInstance(main, id, params) {
    const i = D.idIndex.get(id);
    if (i === undefined) { main.appendChild(h('div', { class: 'error-box', text: 'No instance ' + id + ' in this report.' })); return; }
    const known = S.runs.map((run, r) => [run, r]).filter(([run]) => run.cells.v[i] !== '.');
    let r = parseInt(params.get('r'), 10);
    if (!(r >= 0 && r < S.runs.length) || S.runs[r].cells.v[i] === '.') r = known.length ? known[0][1] : 0;
    let vs = params.get('vs') !== null && params.get('vs') !== '' ? parseInt(params.get('vs'), 10) : -1;
    if (!(vs >= 0 && vs < S.runs.length) || S.runs[vs].cells.v[i] === '.' || vs === r) vs = -1;
    // prev/next within the last list
    let list = listState.rows.length ? listState.rows : D.rows;
    let pos = list.findIndex(([rr, ii]) => ii === i && rr === r);
    if (pos < 0) { list = D.rows; pos = list.findIndex(([rr, ii]) => ii === i && rr === r); }
    const prev = pos > 0 ? list[pos - 1] : null, next = pos >= 0 && pos + 1 < list.length ? list[pos + 1] : null;
    current.prev = prev; current.next = next;
    main.appendChild(h('div', { class: 'inst-head' },
      h('div', null, h('div', { class: 'hint' }, h('a', { href: '#/instances' + (lastListQuery ? '?' + lastListQuery : ''), text: '← Instances' }), ' · ' + S.repos[S.repo[i]]),
        h('h1', { id: 'inst-id', text: id }),
        h('span', { hidden: true, 'data-k': 'inst-stamp', 'data-v': rowStamp(id) })),
      h('div', { class: 'nav-btns' },
        h('a', { class: 'btn', href: prev ? instHref(S.ids[prev[1]], prev[0]) : undefined, disabled: !prev, title: 'previous (k)', text: '↑ prev' }),
        h('a', { class: 'btn', href: next ? instHref(S.ids[next[1]], next[0]) : undefined, disabled: !next, title: 'next (j)', text: '↓ next' }))));
    if (known.length > 1) {
      main.appendChild(h('div', { class: 'runs-bar' }, h('span', { class: 'hint', text: 'Runs:' }),
        known.map(([run, rr]) => h('a', { class: 'chip' + (rr === r ? ' on' : ''), href: instHref(id, rr, vs >= 0 && vs !== rr ? { vs: String(vs) } : {}) }, h('span', { class: 'swatch', style: { background: icolor(run.input) } }), run.label, badge(run.cells.v[i]))),
        h('span', { class: 'hint', style: { marginLeft: '12px' }, text: 'Side by side with:' }),
        (() => {
          const e = h('select', { id: 'vs', 'aria-label': 'side by side with' }, h('option', { value: '', text: 'none' }), known.filter(([, rr]) => rr !== r).map(([run, rr]) => h('option', { value: String(rr), text: run.label })));
          e.value = vs >= 0 ? String(vs) : '';
          e.addEventListener('change', () => { location.hash = instHref(id, r, e.value ? { vs: e.value } : {}); });
          return e;
        })()));
    }
    const cols = h('div', { class: 'cols' + (vs >= 0 ? ' two' : '') });
    main.appendChild(cols);
    const panes = [r].concat(vs >= 0 ? [vs] : []);
    for (const rr of panes) {
      const pane = h('div', { class: 'pane', 'data-run': rr }, h('p', { class: 'loading', text: 'Loading ' + id + '…' }));
      cols.appendChild(pane);
      inst(rr, id).then((d) => { clear(pane); drawInstance(pane, d, rr, i, panes.length > 1); }).catch((e) => { clear(pane); pane.appendChild(h('div', { class: 'error-box', text: e.message })); });
    }
  }
  let lastListQuery = '';
  window.addEventListener('hashchange', () => { const p = parseHash(); if (p.page === 'instances') lastListQuery = p.params.toString(); });
  function drawInstance(pane, d, r, i, twoCols) {
    const run = S.runs[r], c = run.cells;
    const v = c.v[i];
    const info = d.info || {};
    const head = h('div', { class: 'card' });
    head.appendChild(h('div', { class: 'verdict-line' }, twoCols ? h('b', null, h('span', { class: 'swatch', style: { background: icolor(run.input), marginRight: '6px' } }), run.label) : null,
      h('span', { 'data-k': 'verdict' }, badge(v)), d.detail ? h('span', { class: 'status', text: d.detail }) : null));
    const facts = [];
    // A figure the run records but this instance lacks (no trajectory, no usage) shows as "–".
    const fact = (label, value, key) => { if (value !== undefined && value !== null && value !== '') facts.push(h('span', null, label + ' ', h('b', { 'data-k': key, text: value }))); };
    fact('exit', info.exit_status || S.statuses[c.x[i]], 'exit');
    fact('steps', c.s ? fmtInt(num(c.s, i)) : info.api_calls, 'steps');
    fact('cost', c.c ? fmtCost(num(c.c, i)) : info.cost !== undefined ? fmtCost(info.cost) : undefined, 'cost');
    fact('time', c.t ? fmtDur(num(c.t, i)) : info.seconds ? fmtDur(info.seconds) : undefined, 'time');
    fact('attempts', c.a && num(c.a, i) > 1 ? fmtInt(num(c.a, i)) : undefined, 'attempts');
    if (info.tokens) fact('tokens', fmtTok(info.tokens.input) + ' in · ' + fmtTok(info.tokens.output) + ' out', 'tokens');
    fact('model', info.model, 'model');
    fact('written by', info.writer, 'writer');
    if (!twoCols) fact('run', run.label, 'run');
    head.appendChild(h('div', { class: 'facts' }, facts));
    if (d.notes) head.appendChild(h('ul', { class: 'hint' }, d.notes.map((n) => h('li', { text: n }))));
    if (d.flags && d.flags.length) {
      head.appendChild(h('div', { class: 'flags-box', id: 'flags' }, h('b', { text: 'Flagged: ' + d.flags.length + (d.flags.length === 1 ? ' command reached' : ' commands reached') + ' beyond the task\'s start' }),
        h('ul', null, d.flags.map((x) => h('li', null, h('a', { href: '#', 'data-step': x.step, onclick: (e) => { e.preventDefault(); const el = pane.querySelector('.step[data-step="' + x.step + '"]'); if (el) el.scrollIntoView({ block: 'center' }); }, text: 'step ' + x.step }),
          ' · ' + x.class + ' · ' + x.reason + ' · ' + (x.revealed ? 'revealed something' : 'showed nothing'))))));
    }
    if (S.env && S.env[i]) {
      const o = S.env[i];
      head.appendChild(h('div', { class: 'env-box' + (o === 'ok' ? ' ok' : ''), id: 'env', 'data-v': o }, h('b', { text: 'Environment: ' + o.replace(/_/g, ' ') }),
        S.env_why[d.id] ? ' — ' + S.env_why[d.id].replace(/^[^:]*: /, '') : ' — the gold patch resolves it every time, the empty patch never'));
    }
    if (info.exception) head.appendChild(h('pre', { class: 'code', text: info.exception + (info.traceback ? '\n\n' + info.traceback : '') }));
    if (S.live && d.files) head.appendChild(h('div', { class: 'hint', style: { marginTop: '6px' } }, 'Raw files: ', Object.keys(d.files).map((f) => h('a', { href: 'files/' + r + '/' + encodeID(d.id) + '/' + f, target: '_blank', rel: 'noopener', style: { marginRight: '10px' }, text: f }))));
    pane.appendChild(head);
    // verdict: tests
    if (d.eval) pane.appendChild(evalCard(d.eval));
    if (d.problem) {
      const pre = h('pre', { class: 'prose', text: d.problem });
      pane.appendChild(h('div', { class: 'card' }, h('div', { class: 'sec-title' }, h('h2', { text: 'Problem statement' }), h('small', { text: d.problem_source === 'dataset' ? 'from the dataset' : 'from the task message' })),
        pre, d.problem.length > 900 || d.problem.split('\n').length > 16 ? h('button', { class: 'btn', style: { marginTop: '6px' }, onclick: (e) => { pre.classList.toggle('open'); e.target.textContent = pre.classList.contains('open') ? 'Collapse' : 'Show all'; }, text: 'Show all' }) : null));
    }
    pane.appendChild(h('div', { class: 'card', id: 'patch' }, h('div', { class: 'sec-title' }, h('h2', { text: 'Patch' }), h('small', { text: d.patch ? (d.patch_source || '') + ' · ' + d.patch.split('\n').length + ' lines' : '' })),
      d.patch ? diffEl(d.patch) : h('p', { class: 'empty-note', text: d.verdict === 'empty_patch' || d.verdict === 'not_submitted' ? 'No patch was submitted.' : 'This input holds no patch.' })));
    if (d.agent) pane.appendChild(agentCard(d.agent));
    pane.appendChild(trajectoryCard(d));
    if (d.eval && d.eval.test_output) {
      pane.appendChild(h('div', { class: 'card' }, h('details', null, h('summary', null, h('b', { text: 'Test output' + (d.eval.test_output_file ? ' · ' + d.eval.test_output_file : '') }), h('span', { class: 'hint', text: '  ' + fmtInt(d.eval.test_output_bytes) + ' bytes' + (d.eval.test_output_elided ? ', ' + fmtInt(d.eval.test_output_elided) + ' left out in the middle' : '') })),
        h('pre', { class: 'out', style: { borderTop: '1px solid var(--line2)', borderRadius: '6px', marginTop: '8px', maxHeight: '700px' }, text: d.eval.test_output }))));
    }
    if (d.config) {
      pane.appendChild(h('div', { class: 'card' }, h('details', null, h('summary', null, h('b', { text: 'Config' }), h('span', { class: 'hint', text: '  as recorded, secrets redacted' })),
        h('pre', { class: 'code', text: JSON.stringify(d.config, null, 2) }))));
    }
  }
  function evalCard(e) {
    const card = h('div', { class: 'card', id: 'verdict' }, h('div', { class: 'sec-title' }, h('h2', { text: 'Evaluation' }),
      h('small', { text: [e.apply_unknown ? '' : (e.patch_exists === false ? 'no patch · ' : '') + (e.applied ? 'patch applied' : 'patch not applied'),
        e.layout ? (e.family_layout ? 'read in the ' : 'report.json in the ') + e.layout + ' layout' : ''].filter(Boolean).join(' · ') })));
    if (!e.has_tests) {
      card.appendChild(h('p', { class: 'empty-note', text: e.test_output_file ? 'The harness\'s verdict file lists no tests; its test output (' + e.test_output_file + ') is below.' : e.applied ? 'The test log held no usable results.' : 'No test results: the patch did not apply or the evaluation failed.' }));
      return card;
    }
    const known = ['FAIL_TO_PASS', 'PASS_TO_PASS', 'FAIL_TO_FAIL', 'PASS_TO_FAIL'];
    // other dataset families' groups (SWE-PolyBench's one "tests" list) after SWE-bench's
    const groups = known.filter((g) => e.tests[g]).concat(Object.keys(e.tests).filter((g) => !known.includes(g)).sort());
    const wrap = h('div', { class: 'tests' + (groups.length === 1 ? ' one' : '') });
    for (const g of groups) {
      const t = e.tests[g];
      const total = t.success.length + t.failure.length;
      const list = h('ul', { 'data-group': g });
      for (const name of t.failure) list.appendChild(h('li', { class: 'bad', 'data-test': name }, h('span', { class: 'mark', text: '✗' }), h('span', { text: name })));
      const shownOK = t.success.length > 12 ? 0 : t.success.length;
      for (const name of t.success.slice(0, shownOK)) list.appendChild(h('li', { class: 'ok', 'data-test': name }, h('span', { class: 'mark', text: '✓' }), h('span', { text: name })));
      if (t.success.length > shownOK) {
        const rest = t.success.slice(shownOK);
        const li = h('li', null, h('button', { class: 'btn', text: '✓ ' + fmtInt(rest.length) + ' passing — show', onclick: () => { li.remove(); rest.forEach((name) => list.appendChild(h('li', { class: 'ok', 'data-test': name }, h('span', { class: 'mark', text: '✓' }), h('span', { text: name })))); } }));
        list.appendChild(li);
      }
      wrap.appendChild(h('div', null, h('h3', null, g + ' ', h('span', { class: t.failure.length ? 'neg' : 'pos', 'data-k': g, text: t.success.length + '/' + total })), total ? list : h('p', { class: 'empty-note', text: 'none' })));
    }
    card.appendChild(wrap);
    return card;
  }
  function diffEl(patch) {
    const box = h('div', { class: 'diff' });
    const lines = patch.split('\n');
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    for (const ln of lines) {
      let cls = '';
      if (ln.startsWith('diff --git')) cls = 'file';
      else if (ln.startsWith('+++') || ln.startsWith('---') || ln.startsWith('index ') || ln.startsWith('new file') || ln.startsWith('deleted file') || ln.startsWith('similarity') || ln.startsWith('rename ')) cls = 'meta';
      else if (ln.startsWith('@@')) cls = 'hunk';
      else if (ln.startsWith('+')) cls = 'add';
      else if (ln.startsWith('-')) cls = 'del';
      box.appendChild(h('div', { class: cls, text: ln || ' ' }));
    }
    return box;
  }
  // An installed agent's run: what ran, how it ended, and the model proxy's record of its calls.
  function agentCard(a) {
    const card = h('div', { class: 'card', id: 'agent' });
    const total = a.calls.reduce((s, c) => s + (c.cost || 0), 0);
    card.appendChild(h('div', { class: 'sec-title' }, h('h2', { text: 'Installed agent · ' + a.name + (a.version ? ' ' + a.version : '') }),
      h('small', { text: (a.wire || '') + ' · ' + a.calls.length + ' proxy calls · ' + fmtCost(total) })));
    const facts = [h('span', null, 'exit code ', h('b', { 'data-k': 'agent-exit', text: String(a.exit_code) }))];
    if (a.ended) facts.push(h('span', null, 'ended by ', h('b', { 'data-k': 'agent-ended', text: a.ended })));
    if (a.leftover_processes) facts.push(h('span', { class: 'neg' }, 'processes left running ', h('b', { text: String(a.leftover_processes) })));
    if (a.install_sha256) facts.push(h('span', null, 'install ', h('b', { text: a.install_sha256.slice(0, 12) })));
    card.appendChild(h('div', { class: 'facts' }, facts));
    if (a.command) card.appendChild(h('pre', { class: 'code', text: a.command }));
    if (a.torn_record) card.appendChild(h('p', { class: 'hint', text: 'The record\'s last line was torn (the run was cut) and is left out.' }));
    const table = h('table', { class: 'tbl', 'data-k': 'proxy-calls' }, h('thead', null, h('tr', null, ['#', 'wire', 'path', 'model asked', 'status', 'in', 'out', 'cost', 'ms', 'error'].map((t) => h('th', { text: t })))),
      h('tbody', null, a.calls.map((c) => h('tr', { 'data-seq': String(c.seq) },
        h('td', { text: String(c.seq) }), h('td', { text: c.wire + (c.stream ? ' (stream)' : '') }), h('td', { text: c.path }), h('td', { text: c.requested_model || '' }),
        h('td', { class: c.http_status === 200 ? '' : 'neg', text: String(c.http_status) }), h('td', { text: fmtInt(c.in) }), h('td', { text: fmtInt(c.out) }),
        h('td', { text: fmtCost(c.cost) + (c.cost_estimated ? ' (est.)' : '') }), h('td', { text: String(Math.round(c.duration_ms)) }), h('td', { text: c.error || '' })))));
    card.appendChild(a.calls.length ? table : h('p', { class: 'empty-note', text: 'The agent made no model call.' }));
    return card;
  }
  function trajectoryCard(d) {
    const card = h('div', { class: 'card', id: 'trajectory' });
    const steps = d.steps || [];
    const replies = steps.filter((x) => x.kind === 'reply').length;
    card.appendChild(h('div', { class: 'sec-title' }, h('h2', { text: 'Trajectory' }), h('small', { text: steps.length ? replies + ' model calls' + (d.info && d.info.format ? ' · ' + d.info.format : '') : '' })));
    if (!steps.length && !(d.prompts || []).length) { card.appendChild(h('p', { class: 'empty-note', text: 'No trajectory in this input.' })); return card; }
    const list = h('div', { class: 'steps' });
    for (const p of d.prompts || []) {
      list.appendChild(h('details', { class: 'prompt' }, h('summary', { text: (p.kind === 'system' ? 'System prompt' : 'Task message') + ' · ' + fmtInt(p.text.length) + ' characters' }), h('pre', { class: 'prose open', text: p.text })));
    }
    for (const st of steps) list.appendChild(stepEl(st));
    card.appendChild(list);
    return card;
  }
  function stepEl(st) {
    if (st.kind !== 'reply') {
      const el = h('div', { class: 'step loopmsg' + (st.kind === 'exit' ? ' exit' : '') },
        h('div', { class: 'step-h' }, h('b', { text: st.kind === 'exit' ? 'Exit: ' + (st.label || '') : st.kind === 'format_error' ? 'Format error' : 'Interrupt: ' + (st.label || '') }), st.at !== undefined ? h('span', { text: 'at ' + fmtDur(st.at) }) : null));
      if (st.text) el.appendChild(foldPre(st.text, 'thought'));
      return el;
    }
    const meta = [];
    if (st.cost !== undefined) meta.push(fmtCost(st.cost));
    if (st.model_s !== undefined) meta.push('model ' + fmtDur(st.model_s));
    if (st.env_s !== undefined) meta.push('env ' + fmtDur(st.env_s));
    if (st.at !== undefined) meta.push('at ' + fmtDur(st.at));
    const flagged = (st.calls || []).some((c) => c.flag);
    const el = h('div', { class: 'step' + (flagged ? ' flagged' : ''), 'data-step': st.n }, h('div', { class: 'step-h' }, h('b', { text: 'Step ' + st.n }), h('span', { text: meta.join(' · ') })));
    if (st.thought && st.thought.trim()) el.appendChild(h('div', { class: 'thought', text: st.thought.trim() }));
    for (const c of st.calls || []) {
      if (c.flag) el.appendChild(h('div', { class: 'flagnote', 'data-flag': c.flag, text: '⚠ ' + c.flag + ': ' + c.flag_why + (c.revealed ? ' — its output revealed something' : ' — its output showed nothing') }));
      if (c.cmd) el.appendChild(foldPre(c.cmd, 'cmd'));
      const rc = c.rc;
      const out = c.out || '';
      if (c.exc) el.appendChild(h('div', { class: 'rc bad', text: c.exc }));
      el.appendChild(foldPre(out.replace(/\n$/, ''), 'out', rc));
    }
    return el;
  }
  // foldPre shows long text folded: its first lines and a button for the rest.
  function foldPre(text, cls, rc) {
    const wrap = h('div');
    const lines = text.split('\n');
    const limit = cls === 'cmd' ? 16 : 20;
    const pre = h('pre', { class: cls === 'out' ? 'out' + (text ? '' : ' empty') : cls === 'cmd' ? 'cmd mono' : 'thought' });
    if (cls === 'out' && rc !== undefined && rc !== null) wrap.appendChild(h('span', { class: 'rc ' + (rc === 0 ? 'ok' : 'bad'), text: 'exit ' + rc }));
    if (lines.length > limit + 6) {
      pre.textContent = lines.slice(0, limit).join('\n');
      const btn = h('button', { class: 'fold', text: '▸ show ' + fmtInt(lines.length - limit) + ' more lines' });
      btn.addEventListener('click', () => {
        const open = btn.dataset.open === '1';
        pre.textContent = open ? lines.slice(0, limit).join('\n') : text;
        btn.dataset.open = open ? '' : '1';
        btn.textContent = open ? '▸ show ' + fmtInt(lines.length - limit) + ' more lines' : '▾ fold';
      });
      wrap.appendChild(pre);
      wrap.appendChild(btn);
      if (cls !== 'thought') pre.style.borderRadius = cls === 'cmd' ? '6px 6px 0 0' : '0';
    } else {
      pre.textContent = text || (cls === 'out' ? '(no output)' : '');
      wrap.appendChild(pre);
    }
    return wrap;
  }

  // ---------- compare ----------
  // renderCompare draws the comparison dataset by dataset (inputs are paired within one, never
  // across): its gate lines, its pairs and its instance × input matrix; then the figures over the
  // datasets.
  function renderCompare(main, params) {
    const C = S.compare;
    const several = multi();
    const comparable = C.datasets.some((ds) => ds.inputs.length > 1);
    main.appendChild(h('div', { class: 'head' }, h('div', null, h('h1', { text: 'Compare' }),
      h('div', { class: 'sub', text: !comparable ? 'One input' + (several ? ' per dataset' : '') + ': nothing to compare. Give two or more inputs (runs, reports, sweep variants)' + (several ? ' on one dataset' : '') + '.' :
        'Paired on the instances both inputs cover' + (several ? ', within each dataset, never across datasets' : '') + '; flaky instances are left out. ' + C.methods.ci + '; ' + C.methods.test + '.' + (C.gate && several ? ' The gate adjusts each input\'s p-values by ' + C.gate.correction + '.' : '') }))));
    if (!comparable) return;
    const want = params.get('pair');
    const one = want !== null && want !== '';
    for (const ds of C.datasets) {
      const pairs = (C.pairs || []).map((p, n) => [p, n]).filter(([p, n]) => (p.dataset || '') === (ds.name || '') && (!one || String(n) === want));
      if (one && !pairs.length) continue;
      const sec = h('section', { class: 'dataset', 'data-dataset': ds.name });
      if (several) sec.appendChild(h('h2', { class: 'dataset-head' }, 'Dataset ' + dsTitle(ds.name), h('small', { text: datasetNote(ds) })));
      if (C.gate) for (const v of C.gate.verdicts) if ((v.dataset || '') === (ds.name || '') && (!one || pairs.some(([p]) => p.b === v.candidate))) sec.appendChild(h('div', { class: gateClass(v), text: gateText(v) }));
      for (const [p, n] of pairs) sec.appendChild(pairCard(p, n));
      if (ds.best) sec.appendChild(h('p', { class: 'sub' }, 'Best input' + (several ? ' on ' + dsTitle(ds.name) : '') + ': ', h('b', { text: ds.best }), '.'));
      if (!one && ds.inputs.length > 1) sec.appendChild(matrixCard(params, ds));
      main.appendChild(sec);
    }
    if (one && C.pairs.length > 1) main.appendChild(h('p', null, h('a', { href: '#/compare', text: 'All ' + C.pairs.length + ' pairs →' })));
    if (!one && (C.pooled || C.variants)) {
      main.appendChild(pooledCard());
      if (C.gate) for (const po of C.pooled || []) main.appendChild(h('div', { class: 'gate pooled', text: po.b + ' vs ' + po.a + ' pooled (not gated): ' + po.line }));
    }
  }
  function pairCard(p, n) {
    const card = h('div', { class: 'card pair', 'data-pair': n });
    const ka = D.inputIndex(p.dataset, p.a), kb = D.inputIndex(p.dataset, p.b);
    card.appendChild(h('h2', null, h('span', { class: 'swatch', style: { background: icolor(kb), marginRight: '6px' } }), p.b, ' vs ', h('span', { class: 'swatch', style: { background: icolor(ka), margin: '0 6px' } }), p.a,
      multi() ? h('small', { class: 'on-dataset', text: ' on ' + dsTitle(p.dataset) }) : null));
    const diff = p.bootstrap ? p.bootstrap.difference : p.difference;
    card.appendChild(h('div', { class: 'big' }, h('span', { class: 'diffnum ' + (diff > 0 ? 'pos' : diff < 0 ? 'neg' : ''), 'data-k': 'difference', text: diff !== undefined ? fmtPts(diff) + ' points' : 'n/a' }),
      p.ci_low !== undefined ? h('span', { class: 'ci', text: fmtPct(S.compare.confidence_level, 0) + ' CI [' + fmtPts(p.ci_low) + ', ' + fmtPts(p.ci_high) + '] · McNemar p = ' + fmtP(p.mcnemar_p) }) : null,
      p.bootstrap ? h('span', { class: 'ci', text: 'bootstrap CI [' + fmtPts(p.bootstrap.ci_low) + ', ' + fmtPts(p.bootstrap.ci_high) + '], seed ' + p.bootstrap.seed }) : null));
    const body = h('div', { class: 'pair-body' });
    card.appendChild(body);
    body.appendChild(kv([
      ['Common instances', fmtInt(p.common), 'common'],
      [p.a + ' resolved', (+p.resolved_a.toFixed(2)) + ' (' + fmtPct(p.rate_a) + ')', 'resolved-a'],
      [p.b + ' resolved', (+p.resolved_b.toFixed(2)) + ' (' + fmtPct(p.rate_b) + ')', 'resolved-b'],
      ['Both · neither', fmtInt(p.both) + ' · ' + fmtInt(p.neither), 'both'],
      ['Flaky (left out)', fmtInt(p.flaky.length), 'flaky'],
      ['Only in ' + p.a + ' · only in ' + p.b, fmtInt(p.a_only.length) + ' · ' + fmtInt(p.b_only.length), 'only'],
    ]));
    const ids = (list, cls, title, key) => h('div', null, h('h3', null, h('span', { class: cls, text: title }), ' ', h('span', { class: 'hint', 'data-k': key, text: '(' + list.length + ')' })),
      list.length ? h('div', { class: 'idlist' }, list.slice(0, 400).map((id) => h('a', { href: instHref(id, S.inputs[kb].runs[0], { vs: String(S.inputs[ka].runs[0]) }), text: id }))) : h('p', { class: 'empty-note', text: 'none' }));
    body.appendChild(h('div', null, ids(p.newly_resolved, 'pos', '▲ Newly resolved by ' + p.b, 'newly'), ids(p.regressed, 'neg', '▼ Regressed in ' + p.b, 'regressed')));
    if (p.repos && p.repos.length > 1) {
      const t = h('table', null, h('thead', null, h('tr', null, ['repository', 'common', p.a, p.b, '▲', '▼'].map((x, j) => h('th', { class: j ? 'num' : '', text: x })))),
        h('tbody', null, p.repos.map((r) => h('tr', null, h('td', { text: r.repo }), h('td', { class: 'num', text: fmtInt(r.common) }), h('td', { class: 'num', text: +r.resolved_a.toFixed(2) }), h('td', { class: 'num', text: +r.resolved_b.toFixed(2) }),
          h('td', { class: 'num pos', text: r.newly_resolved || '' }), h('td', { class: 'num neg', text: r.regressed || '' })))));
      card.appendChild(h('details', { style: { marginTop: '8px' } }, h('summary', { text: 'Per repository' }), t));
    }
    return card;
  }
  // matrixCard: the instances of one dataset × its inputs (all of them, or where they disagree).
  function matrixCard(params, ds) {
    const C = S.compare;
    const all = params.get('all') === '1';
    const card = h('div', { class: 'card section matrix-card', 'data-dataset': ds.name });
    card.appendChild(h('div', { class: 'sec-title' }, h('h2', { text: 'Instance × input' + (multi() ? ' on ' + dsTitle(ds.name) : '') }),
      h('small', null, all ? h('a', { href: '#/compare', text: 'only where inputs disagree' }) : h('a', { href: '#/compare?all=1', text: 'show every instance' }))));
    const ks = C.inputs.map((inp, k) => k).filter((k) => (C.inputs[k].dataset || '') === (ds.name || ''));
    const cellRuns = ks.map((k) => S.inputs[k].runs);
    const rows = [];
    for (let i = 0; i < D.N; i++) {
      const vals = cellRuns.map((rs) => rs.map((r) => S.runs[r].cells.v[i]));
      if (vals.every((vs) => vs.every((v) => v === '.'))) continue; // another dataset's instance
      if (!all) {
        const resolved = vals.map((vs) => vs.filter((v) => v === 'R').length / Math.max(1, vs.filter((v) => v !== '.' && v !== 'N').length));
        const covered = vals.map((vs) => vs.some((v) => v !== '.' && v !== 'N'));
        const cov = resolved.filter((_, k) => covered[k]);
        if (cov.length < 2 || cov.every((x) => x === cov[0])) continue;
      }
      rows.push([i, vals]);
    }
    card.appendChild(h('p', { class: 'count' }, h('b', { 'data-k': 'matrix-rows', text: fmtInt(rows.length) }), all ? ' instances' : ' instances where the inputs disagree'));
    const t = h('table', { class: 'matrix' }, h('thead', null, h('tr', null, h('th', { text: 'instance' }), ks.map((k) => h('th', { title: C.inputs[k].name }, h('span', { class: 'swatch', style: { background: icolor(k), marginRight: '4px' } }), trunc(C.inputs[k].name, 18))))));
    const tb = h('tbody');
    let shown = 0;
    const moreEl = h('div', { class: 'more' });
    const add = () => {
      const end = Math.min(rows.length, shown + 300);
      for (let n = shown; n < end; n++) {
        const [i, vals] = rows[n];
        tb.appendChild(h('tr', null, h('td', { class: 'mono' }, h('a', { href: instHref(S.ids[i], firstKnown(i)), text: S.ids[i] })),
          vals.map((vs, j) => h('td', { class: 'c' }, vs.map((v, r) => v === '.' ? h('span', { class: 'cX', title: 'not in this run' }) : h('a', { href: instHref(S.ids[i], S.inputs[ks[j]].runs[r]) }, h('span', { class: 'c' + v, title: C.inputs[ks[j]].name + ': ' + VERDICTS[v], text: v === 'R' ? '✓' : v === 'U' ? '✗' : v === 'E' ? '!' : v === 'P' ? '∅' : '–' })))))));
      }
      shown = end;
      moreEl.textContent = end < rows.length ? 'Scroll for more (' + fmtInt(rows.length - end) + ' left)' : '';
    };
    t.appendChild(tb);
    card.appendChild(t);
    card.appendChild(moreEl);
    add();
    new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting) && shown < rows.length) add(); }, { rootMargin: '400px' }).observe(moreEl);
    card.appendChild(h('div', { class: 'legend', style: { marginTop: '8px' } }, VORDER.split('').map((v) => h('span', null, h('i', { style: { background: VCOLOR[v] } }), VERDICTS[v]))));
    return card;
  }
  function firstKnown(i) { for (let r = 0; r < S.runs.length; r++) if (S.runs[r].cells.v[i] !== '.') return r; return 0; }

  // ---------- keys ----------
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    const typing = t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT');
    if (e.key === 'Escape') {
      if (typing) { t.blur(); return; }
      if (current && current.page === 'i') { location.hash = '#/instances' + (lastListQuery ? '?' + lastListQuery : ''); }
      return;
    }
    if (typing) return;
    if (e.key === '/') {
      e.preventDefault();
      if (current.page !== 'instances') { go('instances', {}); }
      setTimeout(() => { const q = document.getElementById('q'); if (q) { q.focus(); q.select(); } }, 0);
      return;
    }
    if (current.page === 'instances') {
      if (e.key === 'j' || e.key === 'ArrowDown' && e.shiftKey) { e.preventDefault(); selectRow(listState.sel + 1); }
      else if (e.key === 'k') { e.preventDefault(); selectRow(listState.sel - 1); }
      else if ((e.key === 'Enter' || e.key === 'o') && listState.sel >= 0) { const [r, i] = listState.rows[listState.sel]; location.hash = instHref(S.ids[i], r); }
    } else if (current.page === 'i') {
      const target = e.key === 'j' ? current.next : e.key === 'k' ? current.prev : null;
      if (target) { e.preventDefault(); location.hash = instHref(S.ids[target[1]], target[0]); }
    }
  }
})();
