// Floe's dashboard: a small single-page app over the scheduler's REST API
// (docs/rest.md). It has no dependencies and loads nothing but this file and
// app.css. Each page is an object with a root element and a refresh function
// that the router calls every second while the page is shown; refresh
// updates the page's live parts and leaves its inputs alone.
'use strict';
(() => {
  const POLL_MS = 1000;
  const TOKEN_KEY = 'floe.token';
  const TERMINAL = ['FINISHED', 'FAILED', 'CANCELED'];
  const view = document.getElementById('view');
  const statusLine = document.getElementById('status');

  // ---- DOM helpers -------------------------------------------------------

  // el builds an HTML element: el('td', {class: 'num'}, 'text', child...).
  // Text is always set as text, never parsed as HTML.
  function el(tag, attrs, ...children) {
    return build(document.createElement(tag), attrs, children);
  }

  // svg builds an SVG element the same way.
  function svg(tag, attrs, ...children) {
    return build(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);
  }

  function build(node, attrs, children) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function table(head, rows, attrs) {
    return el('table', attrs,
      el('thead', {}, el('tr', {}, head.map((h) => el('th', {class: /^(#|records|rec\/s|slots|free|duration|full|incr|back-pressure|busy|keyed state|attempt|parallelism)/i.test(h) ? 'num' : null}, h)))),
      el('tbody', {}, rows));
  }

  function stateBadge(s) {
    return el('span', {class: 'state ' + s}, s);
  }

  // ---- formatting ---------------------------------------------------------

  function fmtInt(n) {
    return n === undefined || n === null ? '–' : Math.round(n).toLocaleString('en-US');
  }

  function fmtRate(r) {
    if (r === undefined || r === null || !isFinite(r)) return '–';
    return (r >= 100 ? fmtInt(r) : r.toFixed(1)) + ' rec/s';
  }

  function fmtBytes(n) {
    if (!n) return '0 B';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
  }

  function fmtDuration(ms) {
    if (ms === undefined || ms === null || ms < 0) return '–';
    if (ms < 1000) return Math.round(ms) + ' ms';
    let s = Math.floor(ms / 1000);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    s %= 60;
    if (h) return `${h}h ${String(m).padStart(2, '0')}m ${String(s).padStart(2, '0')}s`;
    if (m) return `${m}m ${String(s).padStart(2, '0')}s`;
    return ms < 10000 ? (ms / 1000).toFixed(1) + ' s' : s + ' s';
  }

  // fmtTime writes a time of today as the time alone, and an earlier one
  // with its date.
  function fmtTime(t) {
    if (!t) return '–';
    const d = new Date(t);
    return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleString();
  }

  function uptime(job) {
    if (!job.startedAt) return '–';
    const end = job.endedAt ? new Date(job.endedAt) : new Date();
    return fmtDuration(end - new Date(job.startedAt));
  }

  // ---- the API -------------------------------------------------------------

  class HTTPError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  // api sends a request to the scheduler and returns its decoded JSON body,
  // or throws an HTTPError with the API's error message. A 401 asks for a
  // bearer token.
  async function api(method, path, body) {
    const headers = {};
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = 'Bearer ' + token;
    const init = {method, headers};
    if (body instanceof FormData) {
      init.body = body;
    } else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const resp = await fetch(path, init);
    const text = await resp.text();
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch (e) { data = resp.ok ? text : {error: text}; }
    }
    if (resp.status === 401) askToken();
    if (!resp.ok) throw new HTTPError(resp.status, (data && data.error) || resp.status + ' ' + resp.statusText);
    return data;
  }

  // missing remembers the optional endpoints that answered 404, so that a
  // scheduler without them is not asked again until the page reloads.
  const missing = new Set();

  // optional fetches an endpoint that older schedulers lack: null when it
  // does not exist (404 or 405).
  async function optional(kind, path) {
    if (missing.has(kind)) return null;
    try {
      return await api('GET', path);
    } catch (e) {
      if (e.status === 404 || e.status === 405 || e.status === 501) {
        missing.add(kind);
        return null;
      }
      throw e;
    }
  }

  function jobPath(id) {
    return '/v1/jobs/' + encodeURIComponent(id);
  }

  // ---- the token -----------------------------------------------------------

  const tokenForm = document.getElementById('token');
  const tokenInput = document.getElementById('token-input');

  function askToken() {
    if (!tokenForm.hidden) return;
    tokenForm.hidden = false;
    tokenInput.focus();
  }

  tokenForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = tokenInput.value.trim();
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
    tokenInput.value = '';
    tokenForm.hidden = true;
    route();
  });

  // ---- rates -----------------------------------------------------------------

  // Rates turns successive job statuses into records per second, per vertex
  // and per subtask: a vertex's rate is what it read (what it wrote, for a
  // source's vertex, which reads no other), over the time between two polls. A counter
  // that went down (a restart or rescale resets them) gives no rate.
  class Rates {
    constructor() {
      this.prev = null;
      this.vertex = [];
      this.subtask = [];
      this.sources = new Set([0]);
    }

    update(job) {
      const now = performance.now();
      const edges = edgesOf(job);
      this.sources = new Set((job.vertices || []).map((v) => v.stage).filter((s) => isSource(edges, s)));
      const counts = (job.vertices || []).map((v) => ({
        count: this.sources.has(v.stage) ? v.recordsOut : v.recordsIn,
        subtasks: (v.subtasks || []).map((s) => (this.sources.has(v.stage) ? s.recordsOut : s.recordsIn)),
        parallelism: v.parallelism,
      }));
      const prev = this.prev;
      if (prev && now > prev.time) {
        const dt = (now - prev.time) / 1000;
        const rate = (a, b) => (b === undefined || a < b ? null : (a - b) / dt);
        this.vertex = counts.map((c, i) => (prev.counts[i] ? rate(c.count, prev.counts[i].count) : null));
        this.subtask = counts.map((c, i) => c.subtasks.map((n, j) =>
          prev.counts[i] && prev.counts[i].parallelism === c.parallelism ? rate(n, prev.counts[i].subtasks[j]) : null));
      }
      this.prev = {time: now, counts};
    }

    // fromMetrics takes the rates from GET /v1/jobs/{id}/metrics when it
    // gives them, per vertex and per subtask.
    fromMetrics(m) {
      const vs = m && Array.isArray(m.vertices) ? m.vertices : null;
      if (!vs) return;
      const pick = (o, stage) => {
        if (!o) return undefined;
        const r = this.sources.has(stage) ? o.recordsOutPerSecond : o.recordsInPerSecond;
        return typeof r === 'number' ? r : undefined;
      };
      vs.forEach((v, i) => {
        const stage = v.stage === undefined ? i : v.stage;
        const r = pick(v, stage);
        if (r !== undefined) this.vertex[stage] = r;
        (v.subtasks || []).forEach((s, j) => {
          const sr = pick(s, stage);
          if (sr !== undefined) {
            this.subtask[stage] = this.subtask[stage] || [];
            this.subtask[stage][s.subtask === undefined ? j : s.subtask] = sr;
          }
        });
      });
    }
  }

  // metricsOf returns the metrics endpoint's figures for a vertex, or for
  // one of its subtasks, or null.
  function metricsOf(m, stage, subtask) {
    const vs = m && Array.isArray(m.vertices) ? m.vertices : [];
    const v = vs.find((x) => x.stage === stage);
    if (!v || subtask === undefined) return v || null;
    return (v.subtasks || []).find((x) => x.subtask === subtask) || null;
  }

  // watermarkOf returns a subtask's input watermark from the metrics
  // endpoint's answer, if it gives one.
  function watermarkOf(m, stage, subtask) {
    const s = metricsOf(m, stage, subtask);
    const w = s && s.inputWatermark;
    return w ? new Date(w).toISOString().replace('T', ' ').replace('Z', '') : null;
  }

  function pct(x) {
    return typeof x === 'number' ? Math.round(x * 100) + '%' : '–';
  }

  // ---- the jobs page -------------------------------------------------------

  function jobsPage() {
    const body = el('div', {});
    const summary = el('p', {class: 'muted'});
    const root = el('section', {}, el('h1', {}, 'Jobs'), summary, body);
    return {
      root,
      async refresh() {
        const [{jobs}, {taskManagers}] = await Promise.all([api('GET', '/v1/jobs'), api('GET', '/v1/taskmanagers')]);
        const slots = taskManagers.reduce((n, t) => n + t.slots, 0);
        const free = taskManagers.reduce((n, t) => n + t.freeSlots, 0);
        const running = jobs.filter((j) => !TERMINAL.includes(j.state)).length;
        summary.textContent = `${jobs.length} jobs, ${running} not ended · ${taskManagers.length} task managers, ${free} of ${slots} slots free`;
        if (jobs.length === 0) {
          body.replaceChildren(el('p', {}, 'No jobs yet. ', el('a', {href: '#/submit'}, 'Submit one'), ', or run ', el('code', {}, 'floe job submit'), '.'));
          return;
        }
        body.replaceChildren(table(['Name', 'Id', 'State', 'Parallelism', 'Attempt', 'Submitted', 'Uptime'],
          jobs.map((j) => el('tr', {'data-job': j.id},
            el('td', {}, el('a', {href: '#/jobs/' + encodeURIComponent(j.id)}, j.name)),
            el('td', {class: 'mono'}, j.id),
            el('td', {}, stateBadge(j.state), j.message ? el('div', {class: 'muted'}, j.message) : null),
            el('td', {class: 'num'}, j.parallelism),
            el('td', {class: 'num'}, j.attempt),
            el('td', {}, fmtTime(j.submittedAt)),
            el('td', {class: 'uptime'}, uptime(j)))), {id: 'jobs'}));
      },
    };
  }

  // ---- the job page --------------------------------------------------------

  function jobPage(id) {
    const rates = new Rates();
    const title = el('h1', {}, id);
    const facts = el('div', {class: 'kv'});
    const msg = el('span', {class: 'msg', id: 'action-msg'});
    const rescaleN = el('input', {id: 'rescale-n', type: 'number', min: 1, 'aria-label': 'new parallelism'});
    let rescaleTouched = false;
    // NB: once the user is at the input, polls stop setting it to the
    // job's parallelism, which would overwrite what they type.
    rescaleN.addEventListener('focus', () => { rescaleTouched = true; });
    rescaleN.addEventListener('input', () => { rescaleTouched = true; });
    const say = (text, isError) => {
      msg.textContent = text;
      msg.className = 'msg' + (isError ? ' error' : '');
    };
    const act = async (button, what, fn) => {
      button.disabled = true;
      say(what + '…');
      try {
        say(await fn());
      } catch (e) {
        say(what + ' failed: ' + e.message, true);
      } finally {
        button.disabled = false;
      }
    };
    const cancel = el('button', {id: 'cancel', class: 'danger', type: 'button'}, 'Cancel job');
    let armed = null;
    cancel.addEventListener('click', () => {
      if (!armed) {
        cancel.classList.add('armed');
        cancel.textContent = 'Click again to cancel';
        armed = setTimeout(() => { armed = null; cancel.classList.remove('armed'); cancel.textContent = 'Cancel job'; }, 4000);
        return;
      }
      clearTimeout(armed);
      armed = null;
      cancel.classList.remove('armed');
      cancel.textContent = 'Cancel job';
      act(cancel, 'Cancelling', async () => `Job ${(await api('DELETE', jobPath(id))).state.toLowerCase()}.`);
    });
    const savepoint = el('button', {id: 'savepoint', type: 'button'}, 'Take savepoint');
    savepoint.addEventListener('click', () => act(savepoint, 'Taking a savepoint', async () => {
      // The scheduler answers at once with a trigger: poll it until the
      // savepoint is complete or has failed.
      let sp = await api('POST', jobPath(id) + '/savepoints');
      while (sp.status === 'IN_PROGRESS') {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        sp = await api('GET', jobPath(id) + '/savepoints/' + encodeURIComponent(sp.trigger));
      }
      if (sp.status !== 'COMPLETED') throw new Error(sp.failure || sp.status);
      return `Savepoint ${sp.id} at ${sp.path}`;
    }));
    const rescale = el('button', {id: 'rescale', type: 'button'}, 'Rescale');
    rescale.addEventListener('click', () => act(rescale, 'Rescaling', async () => {
      const n = parseInt(rescaleN.value, 10);
      if (!(n >= 1)) throw new Error('give a parallelism of at least 1');
      const st = await api('PATCH', jobPath(id), {parallelism: n});
      rescaleTouched = false;
      return `Rescale to ${n} requested: ${st.message || st.state}`;
    }));
    const actions = el('div', {class: 'bar'}, cancel, savepoint,
      el('label', {}, 'Parallelism ', rescaleN), rescale, msg);

    const graph = el('div', {class: 'graph', id: 'graph'});
    const subtasks = el('div', {id: 'subtasks'});
    const cpChart = el('div', {id: 'checkpoint-chart'});
    const cpTable = el('div', {});
    const exceptions = el('div', {id: 'exceptions'});
    const autoscaler = el('div', {id: 'autoscaler'});
    const logsBox = el('section', {id: 'logs', hidden: true}, el('h2', {}, 'Logs'));
    const logs = el('pre', {class: 'mono'});
    logsBox.append(logs);
    // logLines are the latest lines of the job's log, and logNext the seq
    // to ask for newer ones with.
    let logLines = [], logNext = 0;
    const history = el('div', {id: 'history'});

    const root = el('section', {},
      el('p', {}, el('a', {href: '#/'}, '← Jobs')), title, facts, actions,
      el('h2', {}, 'Job graph'), graph,
      el('h2', {}, 'Subtasks'), subtasks,
      el('h2', {}, 'Checkpoints'), cpChart, cpTable,
      el('h2', {}, 'Autoscaler'), autoscaler,
      stateLookup(id),
      el('h2', {}, 'Exceptions'), exceptions,
      logsBox,
      el('h2', {}, 'History'), history);

    return {
      root,
      async refresh() {
        const job = await api('GET', jobPath(id));
        const [cps, metrics, exc, log, scaler] = await Promise.all([
          api('GET', jobPath(id) + '/checkpoints'),
          optional('metrics', jobPath(id) + '/metrics'),
          optional('exceptions', jobPath(id) + '/exceptions'),
          optional('logs', `${jobPath(id)}/logs?since=${logNext}&limit=200`),
          optional('autoscaler', jobPath(id) + '/autoscaler'),
        ]);
        rates.update(job);
        rates.fromMetrics(metrics);
        title.replaceChildren(job.name, ' ', stateBadge(job.state));
        facts.replaceChildren(
          el('span', {class: 'muted'}, 'Id'), el('span', {class: 'mono'}, job.id),
          el('span', {class: 'muted'}, 'Parallelism'), el('span', {id: 'job-parallelism'}, job.parallelism),
          el('span', {class: 'muted'}, 'Attempt'), el('span', {}, job.attempt),
          el('span', {class: 'muted'}, 'Uptime'), el('span', {}, uptime(job)),
          ...(job.message ? [el('span', {class: 'muted'}, 'Message'), el('span', {}, job.message)] : []));
        const live = !TERMINAL.includes(job.state);
        actions.hidden = !live && !msg.textContent;
        for (const b of [cancel, savepoint, rescale, rescaleN]) b.hidden = !live;
        if (!rescaleTouched && document.activeElement !== rescaleN) rescaleN.value = job.parallelism;
        graph.replaceChildren(drawGraph(job, rates, metrics));
        subtasks.replaceChildren(subtaskTable(job, rates, metrics));
        const list = (cps && cps.checkpoints) || [];
        cpChart.replaceChildren(checkpointCharts(list));
        cpTable.replaceChildren(checkpointTable(list));
        exceptions.replaceChildren(exceptionList(job, exc));
        autoscaler.replaceChildren(autoscalerView(scaler));
        logsBox.hidden = log === null;
        if (log !== null) {
          logLines = logLines.concat(log.lines || []).slice(-200);
          logNext = log.next || logNext;
          logs.textContent = logLines.map(logLine).join('\n') || '(no lines yet)';
        }
        history.replaceChildren(table(['Time', 'State', 'Message'],
          (job.history || []).slice().reverse().map((e) => el('tr', {},
            el('td', {}, fmtTime(e.time)), el('td', {}, stateBadge(e.state)), el('td', {}, e.message || '')))));
      },
    };
  }

  // backPressureColour is a vertex's fill and stroke by its back-pressure:
  // green when it flows, amber when it waits on its downstream now and
  // then, red when it mostly waits.
  function backPressureColour(bp) {
    if (bp >= 0.5) return ['#ffebe9', '#cf222e'];
    if (bp >= 0.1) return ['#fff8c5', '#d4a72c'];
    return ['#dafbe1', '#2da44e'];
  }

  // edgesOf returns the job's graph as edges {from, to, partitioning}
  // between stages: each vertex's inputs, in order, or, from a scheduler
  // that does not report inputs, each vertex's output to the next.
  function edgesOf(job) {
    const vs = job.vertices || [];
    if (vs.some((v) => Array.isArray(v.inputs) && v.inputs.length > 0)) {
      return vs.flatMap((v) => (v.inputs || []).map((i) => ({from: i.stage, to: v.stage, partitioning: i.partitioning})));
    }
    return vs.slice(1).map((v, i) => ({from: vs[i].stage, to: v.stage, partitioning: vs[i].output || 'forward'}));
  }

  // isSource tells whether a vertex reads no other vertex: what it wrote
  // is its rate.
  function isSource(edges, stage) {
    return !edges.some((e) => e.to === stage);
  }

  // layoutGraph places the vertices of a DAG in columns: a vertex's column
  // is the longest path to it from a source. Within a column, vertices are
  // ordered by the mean position of the vertices they read (sources by
  // stage), which keeps edges from crossing in the usual graphs. It
  // returns the columns, each a list of stages top to bottom.
  function layoutGraph(stages, edges) {
    const col = new Map(stages.map((s) => [s, 0]));
    // NB: a DAG's longest paths settle within one pass per vertex; the
    // bound also ends the loop on a graph that is not one.
    for (let pass = 0; pass < stages.length; pass++) {
      let changed = false;
      for (const e of edges) {
        if (col.has(e.from) && col.has(e.to) && col.get(e.to) < col.get(e.from) + 1) {
          col.set(e.to, col.get(e.from) + 1);
          changed = true;
        }
      }
      if (!changed) break;
    }
    const columns = [];
    for (const s of stages) (columns[col.get(s)] = columns[col.get(s)] || []).push(s);
    const pos = new Map();
    columns.forEach((c, i) => {
      const key = (s) => {
        const ins = edges.filter((e) => e.to === s && pos.has(e.from)).map((e) => pos.get(e.from));
        return ins.length && i > 0 ? ins.reduce((a, b) => a + b, 0) / ins.length : -1;
      };
      const keys = new Map(c.map((s) => [s, key(s)]));
      c.sort((a, b) => keys.get(a) - keys.get(b) || a - b);
      c.forEach((s, k) => pos.set(s, (k + 0.5) / c.length));
    });
    return columns.filter(Boolean);
  }

  // bezier returns a cubic Bézier edge from (x0, y0) to (x1, y1) that
  // leaves and enters horizontally, and its point at x = xl, where its
  // label goes.
  function bezier(x0, y0, x1, y1, xl) {
    const c = (x0 + x1) / 2;
    const at = (t) => {
      const u = 1 - t;
      return [u * u * u * x0 + 3 * u * t * (u * c + t * c) + t * t * t * x1,
        u * u * u * y0 + 3 * u * t * (u * y0 + t * y1) + t * t * t * y1];
    };
    let lo = 0, hi = 1;
    for (let k = 0; k < 30; k++) {
      const mid = (lo + hi) / 2;
      if (at(mid)[0] < xl) lo = mid; else hi = mid;
    }
    return {d: `M${x0},${y0} C${c},${y0} ${c},${y1} ${x1},${y1}`, label: at(lo)};
  }

  // stateSizes returns the metrics endpoint's keyed state sizes of a
  // vertex, or of one of its subtasks: [{operator, keys, bytes}].
  function stateSizes(metrics, stage, subtask) {
    const m = metricsOf(metrics, stage, subtask);
    return m && Array.isArray(m.operatorStates) ? m.operatorStates : [];
  }

  function fmtState(o) {
    return `${fmtInt(o.keys)} keys, ${fmtBytes(o.bytes)}`;
  }

  // drawGraph draws the job's graph left to right: one box per vertex
  // listing its chained operators and the size of their keyed state, in
  // columns by their distance from the sources, and one edge per input,
  // labelled with how records cross it. A linear job is a row.
  function drawGraph(job, rates, metrics) {
    const vs = job.vertices || [];
    const byStage = new Map(vs.map((v) => [v.stage, v]));
    const edges = edgesOf(job).filter((e) => byStage.has(e.from) && byStage.has(e.to));
    const columns = layoutGraph(vs.map((v) => v.stage), edges);
    const W = 230, GAP = 110, VGAP = 40, PAD = 20, LINE = 17;
    const height = new Map(vs.map((v) => [v.stage,
      22 + (v.name.split(' -> ').length + stateSizes(metrics, v.stage).length) * LINE + 3 * LINE + 18]));
    const colHeight = columns.map((c) => c.reduce((n, s) => n + height.get(s), 0) + (c.length - 1) * VGAP);
    const H = Math.max(120, ...colHeight) + 2 * PAD;
    const box = new Map();
    columns.forEach((c, i) => {
      let y = (H - colHeight[i]) / 2;
      for (const s of c) {
        box.set(s, {x: PAD + i * (W + GAP), y, h: height.get(s)});
        y += height.get(s) + VGAP;
      }
    });
    const root = svg('svg', {width: PAD * 2 + columns.length * W + Math.max(0, columns.length - 1) * GAP, height: H,
      role: 'img', 'aria-label': 'job graph'});
    root.append(svg('defs', {}, svg('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse'}, svg('path', {d: 'M0,0 L10,5 L0,10 z', fill: '#6a737d'}))));
    // An edge leaves its vertex's right side and enters its reader's left
    // side at evenly spaced ports, in the order of the other ends, so
    // that edges sharing a box do not meet.
    const port = (list, e, key, b) => {
      const mine = list.filter((x) => x[key] === e[key]).sort((p, q) => box.get(p[key === 'from' ? 'to' : 'from']).y - box.get(q[key === 'from' ? 'to' : 'from']).y);
      return b.y + b.h * (mine.indexOf(e) + 1) / (mine.length + 1);
    };
    for (const e of edges) {
      const a = box.get(e.from), b = box.get(e.to);
      const x0 = a.x + W, y0 = port(edges, e, 'from', a), x1 = b.x - 2, y1 = port(edges, e, 'to', b);
      const curve = bezier(x0, y0, x1, y1, x0 + GAP / 2);
      root.append(svg('g', {class: 'edge', 'data-from': e.from, 'data-to': e.to, 'data-partitioning': e.partitioning},
        svg('path', {d: curve.d, fill: 'none', stroke: '#6a737d', 'stroke-width': 1.5, 'marker-end': 'url(#arrow)'}),
        svg('text', {x: curve.label[0], y: curve.label[1] - 7, 'text-anchor': 'middle', class: 'edge-label'}, e.partitioning)));
    }
    for (const v of vs) root.append(drawVertex(v, box.get(v.stage), W, LINE, isSource(edges, v.stage), rates, metrics));
    return root;
  }

  // drawVertex draws one vertex's box at b: its operators, parallelism,
  // rate, back-pressure, busy share and keyed state sizes.
  function drawVertex(v, b, W, LINE, source, rates, metrics) {
    const {x, y, h} = b;
    const [fill, stroke] = backPressureColour(v.backPressure || 0);
    const rate = rates.vertex[v.stage];
    const ops = v.name.split(' -> ');
    const g = svg('g', {class: 'vertex', 'data-stage': v.stage, 'data-parallelism': v.parallelism},
      svg('title', {}, `${v.name}\nback-pressure ${Math.round((v.backPressure || 0) * 100)}%`),
      svg('rect', {x, y, width: W, height: h, rx: 8, fill, stroke, 'stroke-width': 1.5}),
      svg('text', {x: x + 12, y: y + 20, class: 'muted'}, `vertex ${v.stage}`));
    ops.forEach((op, k) => g.append(svg('text', {x: x + 12, y: y + 22 + (k + 1) * LINE, class: 'op'}, (k ? '→ ' : '') + op)));
    const states = stateSizes(metrics, v.stage);
    states.forEach((o, k) => g.append(svg('text', {x: x + 12, y: y + 22 + (ops.length + k + 1) * LINE, class: 'state-size',
      'data-operator': o.operator, 'data-keys': o.keys, 'data-bytes': o.bytes}, `${o.operator} state: ${fmtState(o)}`)));
    const sy = y + 22 + (ops.length + states.length + 1) * LINE + 4;
    g.append(
      svg('text', {x: x + 12, y: sy, class: 'parallelism'}, `parallelism ${v.parallelism}`),
      svg('text', {x: x + 12, y: sy + LINE, class: 'rate', 'data-rate': rate === null || rate === undefined ? '' : rate.toFixed(3)},
        (source ? 'out ' : 'in ') + fmtRate(rate)),
      svg('text', {x: x + 12, y: sy + 2 * LINE, class: 'muted'}, `back-pressure ${Math.round((v.backPressure || 0) * 100)}%`));
    // The share of time the vertex's subtasks were busy, when the
    // metrics endpoint reports it, as a bar along the box's bottom.
    const vm = metricsOf(metrics, v.stage);
    if (vm && typeof vm.busy === 'number') {
      g.append(svg('rect', {x: x + 1, y: y + h - 6, width: Math.max(0, Math.min(1, vm.busy)) * (W - 2), height: 5, fill: '#bc4c00', class: 'busy'},
        svg('title', {}, `busy ${pct(vm.busy)}`)),
      svg('text', {x: x + W - 12, y: sy + 2 * LINE, 'text-anchor': 'end', class: 'muted'}, `busy ${pct(vm.busy)}`));
    }
    return g;
  }

  function subtaskTable(job, rates, metrics) {
    const withWatermarks = (job.vertices || []).some((v) => (v.subtasks || []).some((s) => watermarkOf(metrics, v.stage, s.subtask) !== null));
    const withBusy = (job.vertices || []).some((v) => metricsOf(metrics, v.stage) !== null);
    const withState = (job.vertices || []).some((v) => stateSizes(metrics, v.stage).length > 0);
    const head = ['Vertex', '#', 'State', 'Task manager', 'Records in', 'Records out', 'Rec/s', 'Back-pressure'];
    if (withBusy) head.push('Busy');
    if (withState) head.push('Keyed state');
    if (withWatermarks) head.push('Watermark (UTC)');
    head.push('Error');
    const rows = [];
    for (const v of job.vertices || []) {
      for (const s of v.subtasks || []) {
        const r = (rates.subtask[v.stage] || [])[s.subtask];
        rows.push(el('tr', {'data-stage': v.stage, 'data-subtask': s.subtask},
          el('td', {}, v.name), el('td', {class: 'num'}, s.subtask), el('td', {}, stateBadge(s.state)),
          el('td', {class: 'mono tm'}, s.taskManager || '–'),
          el('td', {class: 'num'}, fmtInt(s.recordsIn)), el('td', {class: 'num'}, fmtInt(s.recordsOut)),
          el('td', {class: 'num'}, fmtRate(r).replace(' rec/s', '')),
          el('td', {class: 'num'}, Math.round((s.backPressure || 0) * 100) + '%'),
          withBusy ? el('td', {class: 'num'}, pct((metricsOf(metrics, v.stage, s.subtask) || {}).busy)) : null,
          withState ? stateCell(stateSizes(metrics, v.stage, s.subtask)) : null,
          withWatermarks ? el('td', {class: 'mono'}, watermarkOf(metrics, v.stage, s.subtask) || '–') : null,
          el('td', {class: 'error'}, s.error || '')));
      }
    }
    return table(head, rows);
  }

  // stateCell lists a subtask's keyed state sizes, one operator a line.
  function stateCell(states) {
    return el('td', {class: 'num state-sizes'}, states.length === 0 ? '–' : states.map((o) =>
      el('div', {class: 'state-size', 'data-operator': o.operator, 'data-keys': o.keys, 'data-bytes': o.bytes},
        `${o.operator}: ${fmtState(o)}`)));
  }

  // checkpointCharts draws the durations and sizes of the latest completed
  // and failed checkpoints, oldest on the left, as two bar charts.
  function checkpointCharts(list) {
    const done = list.filter((c) => c.status !== 'IN_PROGRESS').slice(0, 40).reverse();
    if (done.length === 0) return el('p', {class: 'muted'}, 'No checkpoint has completed yet (a job takes checkpoints when submitted with a checkpoint interval).');
    const completed = list.filter((c) => c.status === 'COMPLETED').length;
    const failed = list.filter((c) => c.status === 'FAILED').length;
    return el('div', {},
      el('p', {class: 'muted'}, `Latest ${list.length} checkpoints: ${completed} completed, ${failed} failed.`),
      el('div', {class: 'grid2'},
        barChart('Duration', done, (c) => c.durationMillis, fmtDuration, 'duration'),
        barChart('Size (full, incremental darker)', done, (c) => c.fullBytes, fmtBytes, 'size', (c) => c.incrementalBytes)));
  }

  function barChart(label, items, value, fmt, name, inner) {
    const W = 560, H = 150, L = 64, B = 18, T = 20;
    const top = Math.max(1, ...items.map(value));
    const bw = (W - L - 8) / Math.max(items.length, 10);
    const y = (v) => T + (H - T - B) * (1 - v / top);
    const root = svg('svg', {class: 'chart', 'data-chart': name, width: W, height: H, role: 'img', 'aria-label': label});
    root.append(svg('text', {x: L, y: 13}, label),
      svg('text', {x: L - 6, y: T + 4, 'text-anchor': 'end'}, fmt(top)),
      svg('text', {x: L - 6, y: H - B, 'text-anchor': 'end'}, fmt(0)),
      svg('line', {x1: L, y1: H - B, x2: W - 4, y2: H - B, stroke: '#d0d7de'}));
    items.forEach((c, i) => {
      const x = L + 4 + i * bw, v = value(c), failed = c.status === 'FAILED';
      root.append(svg('rect', {x, y: y(v), width: Math.max(1, bw - 2), height: H - B - y(v), fill: failed ? '#cf222e' : '#54aeff', class: 'bar'},
        svg('title', {}, `checkpoint ${c.id} (${c.status}): ${fmt(v)}`)));
      if (inner && !failed) {
        const iv = Math.min(inner(c), v);
        root.append(svg('rect', {x, y: y(iv), width: Math.max(1, bw - 2), height: H - B - y(iv), fill: '#0969da'}));
      }
      if (i === 0 || i === items.length - 1) root.append(svg('text', {x: x + bw / 2 - 1, y: H - 4, 'text-anchor': 'middle'}, '#' + c.id));
    });
    return root;
  }

  function checkpointTable(list) {
    if (list.length === 0) return el('span', {});
    return table(['#', 'Status', 'Attempt', 'Triggered', 'Duration', 'Full size', 'Incremental', 'Path or message'],
      list.slice(0, 8).map((c) => el('tr', {},
        el('td', {class: 'num'}, c.id), el('td', {}, stateBadge(c.status)), el('td', {class: 'num'}, c.attempt),
        el('td', {class: 'nowrap'}, fmtTime(c.triggeredAt)), el('td', {class: 'num'}, c.status === 'IN_PROGRESS' ? '…' : fmtDuration(c.durationMillis)),
        el('td', {class: 'num'}, fmtBytes(c.fullBytes)), el('td', {class: 'num'}, fmtBytes(c.incrementalBytes)),
        el('td', {class: c.message ? 'error' : 'mono path'}, c.message || c.path || ''))));
  }

  // exceptionList shows what the exceptions endpoint returns when the
  // scheduler has it, and otherwise the errors the job's status carries:
  // its failed subtasks and its failure and restart events.
  function exceptionList(job, exc) {
    let items = [];
    if (exc !== null) {
      items = (exc.exceptions || []).map((x) => ({time: x.time,
        where: [x.vertex ? `${x.vertex} #${x.subtask}` : `attempt ${x.attempt}`, x.taskManager ? 'on ' + x.taskManager : '',
          x.module ? `(${x.operator || ''} ${x.module}.${x.function || ''})` : ''].filter(Boolean).join(' '),
        text: [x.message, x.key ? 'key ' + x.key : '', x.record ? 'record ' + x.record : ''].filter(Boolean).join('\n')}));
    } else {
      for (const v of job.vertices || []) {
        for (const s of v.subtasks || []) {
          if (s.error) items.push({where: `${v.name} #${s.subtask} on ${s.taskManager || '?'}`, text: s.error});
        }
      }
      for (const e of (job.history || []).slice().reverse()) {
        if (e.state === 'FAILED' || e.state === 'RESTARTING') items.push({time: e.time, where: e.state, text: e.message || ''});
      }
    }
    if (items.length === 0) return el('p', {class: 'muted'}, 'None.');
    return table(['Time', 'Where', 'Error'], items.slice(0, 50).map((x) => el('tr', {},
      el('td', {}, x.time ? fmtTime(x.time) : ''), el('td', {}, x.where || ''), el('td', {}, el('pre', {class: 'mono error'}, x.text)))));
  }

  // autoscalerView shows a job's autoscaling policy and its decisions,
  // newest first, each stage with the figures it was decided from
  // (docs/autoscaling.md).
  function autoscalerView(st) {
    if (st === null) return el('p', {class: 'muted'}, 'This scheduler has no autoscaler.');
    const c = st.config || {};
    const policy = c.enabled
      ? `On: target utilization ${Math.round((c.targetUtilization || 0) * 100)}%, stabilization ${c.stabilization}, ` +
        `cooldown ${c.cooldown}, every ${c.interval}` + (c.maxParallelism ? `, at most ${c.maxParallelism}` : '') +
        `. Rescales: ${st.rescales}` + (st.slotsMissing ? `; ${st.slotsMissing} slots missing` : '') + '.'
      : 'Off.';
    const rows = [];
    for (const d of (st.decisions || []).slice(0, 20)) {
      const stages = (d.vertices || []).map((v) => `${v.stage} ${v.name}: ${v.current}→${v.new}` +
        ` (needs ${Math.round(v.required)}/s, true rate ${Math.round(v.trueRate)}/s, busy ${Math.round(v.busy * 100)}%` +
        (v.skewed ? ', skewed' : '') + ')').join('\n');
      rows.push(el('tr', {}, el('td', {}, fmtTime(d.at)), el('td', {}, d.journaled ? 'journaled' : 'latest'),
        el('td', {}, d.reason), el('td', {}, el('pre', {class: 'mono'}, stages))));
    }
    return el('div', {}, el('p', {id: 'autoscaler-policy'}, policy),
      rows.length ? table(['Time', 'Kept', 'Decision', 'Stages'], rows) : el('p', {class: 'muted'}, 'No decisions yet.'));
  }

  function logLine(l) {
    return [fmtTime(l.time), (l.level || '').toUpperCase(), `${l.vertex} #${l.subtask}`, l.message].join(' ');
  }

  // stateLookup is the box that reads one key of a job's queryable state.
  function stateLookup(id) {
    const name = el('input', {id: 'state-name', placeholder: 'state name', required: true});
    const key = el('input', {id: 'state-key', placeholder: 'key', required: true});
    const out = el('div', {id: 'state-result'});
    const form = el('form', {class: 'bar'}, name, key, el('button', {type: 'submit', id: 'state-lookup'}, 'Look up'), out);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      out.replaceChildren('…');
      try {
        const v = await api('GET', `${jobPath(id)}/state/${encodeURIComponent(name.value)}/${encodeURIComponent(key.value)}`);
        out.replaceChildren(el('code', {}, JSON.stringify(v.value)), el('span', {class: 'muted'}, ` (${v.type})`));
      } catch (e) {
        out.replaceChildren(el('span', {class: 'error'}, e.message));
      }
    });
    return el('section', {}, el('h2', {}, 'Queryable state'), form);
  }

  // ---- the task managers page ----------------------------------------------

  function taskManagersPage() {
    const body = el('div', {});
    const root = el('section', {}, el('h1', {}, 'Task managers'), body);
    return {
      root,
      async refresh() {
        const [{taskManagers}, {jobs}] = await Promise.all([api('GET', '/v1/taskmanagers'), api('GET', '/v1/jobs')]);
        const live = jobs.filter((j) => !TERMINAL.includes(j.state));
        const full = await Promise.all(live.map((j) => api('GET', jobPath(j.id)).catch(() => null)));
        const tasks = new Map();
        for (const j of full.filter(Boolean)) {
          for (const v of j.vertices || []) {
            for (const s of v.subtasks || []) {
              if (!s.taskManager || TERMINAL.includes(s.state)) continue;
              if (!tasks.has(s.taskManager)) tasks.set(s.taskManager, []);
              tasks.get(s.taskManager).push(`${j.name}: ${v.name} #${s.subtask}`);
            }
          }
        }
        const memory = taskManagers.some((t) => t.memoryBytes !== undefined);
        const head = ['Id', 'Address', 'Host', 'Slots', 'Free', memory ? 'Memory' : null, 'Last heartbeat', 'Tasks'].filter(Boolean);
        body.replaceChildren(table(head, taskManagers.map((t) => {
          const ts = tasks.get(t.id) || [];
          return el('tr', {'data-tm': t.id},
            el('td', {class: 'mono'}, t.id), el('td', {class: 'mono'}, t.addr), el('td', {}, t.hostname || '–'),
            el('td', {class: 'num'}, t.slots), el('td', {class: 'num'}, t.freeSlots),
            memory ? el('td', {class: 'num'}, fmtBytes(t.memoryBytes)) : null,
            el('td', {}, fmtDuration(Date.now() - new Date(t.lastHeartbeat)) + ' ago'),
            el('td', {}, ts.length ? el('details', {}, el('summary', {}, `${ts.length} tasks`), el('div', {class: 'mono'}, ts.map((x) => el('div', {}, x)))) : '0'));
        }), {id: 'taskmanagers'}));
      },
    };
  }

  // ---- the submit page -----------------------------------------------------

  function submitPage() {
    const spec = el('input', {type: 'file', id: 'spec', name: 'spec', accept: '.yaml,.yml', required: true});
    const modules = el('input', {type: 'file', id: 'modules', accept: '.wasm', multiple: true});
    const names = el('div', {class: 'muted'});
    modules.addEventListener('change', () => {
      names.textContent = [...modules.files].map((f) => `${moduleName(f.name)} ← ${f.name}`).join(', ');
    });
    const parallelism = el('input', {type: 'number', id: 'parallelism', min: 0, placeholder: 'the spec\'s'});
    const interval = el('input', {id: 'checkpoint-interval', placeholder: 'e.g. 10s'});
    const params = el('textarea', {id: 'params', rows: 3, cols: 50, placeholder: 'input=/data/words.txt'});
    const fromSavepoint = el('input', {id: 'from-savepoint', size: 60, placeholder: 'file:///... or s3://...'});
    const allow = el('input', {type: 'checkbox', id: 'allow-non-restored'});
    const out = el('p', {id: 'submit-result'});
    const form = el('form', {class: 'stack'},
      el('label', {for: 'spec'}, 'Job spec ', el('span', {class: 'hint'}, '(YAML)')), spec,
      el('label', {for: 'modules'}, 'Modules ', el('span', {class: 'hint'}, '(Wasm files, each named after its file: count.wasm is the module "count")')), modules, names,
      el('label', {for: 'params'}, 'Parameters ', el('span', {class: 'hint'}, '(one name=value a line, as --set)')), params,
      el('label', {for: 'parallelism'}, 'Parallelism'), parallelism,
      el('label', {for: 'checkpoint-interval'}, 'Checkpoint interval'), interval,
      el('label', {for: 'from-savepoint'}, 'Start from savepoint'), fromSavepoint,
      el('label', {}, allow, ' allow state the job does not use (allowNonRestoredState)'),
      el('p', {}, el('button', {type: 'submit', id: 'submit'}, 'Submit job')), out);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const fd = new FormData();
      fd.append('spec', spec.files[0]);
      for (const f of modules.files) fd.append(moduleName(f.name), f, f.name);
      for (const line of params.value.split('\n').map((l) => l.trim()).filter(Boolean)) fd.append('set', line);
      if (parallelism.value) fd.append('parallelism', parallelism.value);
      if (interval.value.trim()) fd.append('checkpointInterval', interval.value.trim());
      if (fromSavepoint.value.trim()) fd.append('fromSavepoint', fromSavepoint.value.trim());
      if (allow.checked) fd.append('allowNonRestoredState', 'true');
      out.className = '';
      out.textContent = 'Submitting…';
      try {
        const {id} = await api('POST', '/v1/jobs', fd);
        location.hash = '#/jobs/' + encodeURIComponent(id);
      } catch (e) {
        out.className = 'error';
        out.textContent = e.message;
      }
    });
    return {root: el('section', {}, el('h1', {}, 'Submit a job'), form)};
  }

  function moduleName(file) {
    return file.replace(/\.wasm$/, '');
  }

  // ---- the router ----------------------------------------------------------

  let generation = 0;

  function route() {
    const hash = location.hash || '#/';
    let page, nav;
    const m = hash.match(/^#\/jobs\/([^/]+)$/);
    if (m) [page, nav] = [jobPage(decodeURIComponent(m[1])), 'jobs'];
    else if (hash === '#/taskmanagers') [page, nav] = [taskManagersPage(), 'taskmanagers'];
    else if (hash === '#/submit') [page, nav] = [submitPage(), 'submit'];
    else [page, nav] = [jobsPage(), 'jobs'];
    for (const a of document.querySelectorAll('[data-nav]')) a.classList.toggle('active', a.dataset.nav === nav);
    view.replaceChildren(page.root);
    const gen = ++generation;
    if (!page.refresh) {
      statusLine.textContent = '';
      return;
    }
    // poll refreshes the page, then again POLL_MS after it is done, until
    // another page is shown.
    const poll = async () => {
      if (gen !== generation) return;
      try {
        await page.refresh();
        statusLine.textContent = 'updated ' + new Date().toLocaleTimeString();
        view.dataset.loaded = 'true';
      } catch (e) {
        statusLine.textContent = e.message;
      }
      if (gen === generation) setTimeout(poll, POLL_MS);
    };
    view.dataset.loaded = 'false';
    poll();
  }

  window.addEventListener('hashchange', route);
  route();
})();
