// The run page: draws a definition's graph (laid out by the server with ELK) as inline SVG and a
// run on it, polling the run's overlay every second while it runs. Plain JS, no dependencies.
'use strict';
(function () {
  var SVG = 'http://www.w3.org/2000/svg';
  var $ = function (id) { return document.getElementById(id); };
  var view = { graph: null, run: null, zoom: 1, nodes: {}, edges: {}, selected: null, timer: null, graphKey: null, actions: false };
  // The operator token lives in this tab's sessionStorage only: never in a URL, a cookie or the page.
  var TOKEN_KEY = 'swflow.operatorToken';

  function getJson(url) {
    return fetch(url, { headers: { accept: 'application/json' } }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body && body.error ? body.error : r.status + ' ' + r.statusText);
        return body;
      });
    });
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function duration(ms) {
    if (ms < 1000) return Math.round(ms) + ' ms';
    var s = ms / 1000;
    if (s < 60) return (s < 10 ? s.toFixed(1) : Math.round(s)) + ' s';
    var m = Math.floor(s / 60);
    if (m < 60) return m + 'm ' + Math.round(s - m * 60) + 's';
    var h = Math.floor(m / 60);
    return h + 'h ' + (m - h * 60) + 'm';
  }

  // 3.1 MB, 12.0 kB, 800 B (SI units, as browsers and file managers show sizes).
  function size(bytes) {
    if (bytes < 1000) return bytes + ' B';
    var units = ['kB', 'MB', 'GB'];
    var v = bytes / 1000;
    var i = 0;
    while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
    return v.toFixed(1) + ' ' + units[i];
  }

  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  var MARK_TEXT = { current: 'current', visited: 'visited', failed: 'failed here', unreached: 'not reached' };

  // ------------------------------------------------------------------ lists

  function loadDefinitions(selectedKey) {
    return getJson('/api/definitions').then(function (body) {
      var list = $('definitions');
      var select = $('filter-definition');
      list.textContent = '';
      body.definitions.forEach(function (d) {
        var li = el('li');
        var a = el('a', { href: '/definitions/' + encodeURIComponent(d.key) });
        if (d.key === selectedKey) a.setAttribute('aria-current', 'page');
        a.appendChild(el('span', {}, d.title));
        a.appendChild(el('span', { class: 'sub' }, d.key + ' · DSL ' + d.dsl));
        li.appendChild(a);
        list.appendChild(li);
        if (!Array.prototype.some.call(select.options, function (o) { return o.value === d.id; })) select.appendChild(el('option', { value: d.id }, d.id));
      });
      if (!body.definitions.length) list.appendChild(el('li', {}, 'No definitions.'));
      return body.definitions;
    });
  }

  function loadRuns() {
    var params = new URLSearchParams();
    var d = $('filter-definition').value;
    var s = $('filter-status').value;
    if (d) params.set('definition', d);
    if (s) params.set('status', s);
    return getJson('/api/runs?' + params).then(function (body) {
      var list = $('runs');
      list.textContent = '';
      body.runs.forEach(function (r) {
        var li = el('li');
        var a = el('a', { href: '/runs/' + encodeURIComponent(r.workflowId) + '?runId=' + encodeURIComponent(r.runId) });
        if (view.run && view.run.runId === r.runId) a.setAttribute('aria-current', 'page');
        a.appendChild(el('span', {}, r.workflowId + ' '));
        a.appendChild(el('span', { class: 'status ' + r.status }, r.status));
        a.appendChild(el('span', { class: 'sub' }, (r.definition || r.type) + ' · ' + new Date(r.startTime).toLocaleString() + (r.state && r.status === 'Running' ? ' · at ' + r.state : '')));
        li.appendChild(a);
        list.appendChild(li);
      });
      if (!body.runs.length) list.appendChild(el('li', {}, 'No runs match.'));
    }).catch(function (err) {
      $('runs').textContent = '';
      $('runs').appendChild(el('li', {}, 'Cannot list runs: ' + err.message));
    });
  }

  // ------------------------------------------------------------------ the graph

  function drawGraph(g) {
    var canvas = $('canvas');
    canvas.textContent = '';
    view.nodes = {};
    view.edges = {};
    var svg = sv('svg', { viewBox: '0 0 ' + g.width + ' ' + g.height, role: 'group', 'aria-label': g.title + ' (' + g.nodes.length + ' nodes)', id: 'graph' });
    var defs = sv('defs');
    ['plain', 'taken'].forEach(function (kind) {
      var m = sv('marker', { id: 'arrow-' + kind, viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' });
      m.appendChild(sv('path', { d: 'M0,0 L10,5 L0,10 z', fill: kind === 'taken' ? '#1a7f37' : '#afb8c1' }));
      defs.appendChild(m);
    });
    svg.appendChild(defs);
    var nodeLayer = sv('g', { class: 'nodes' });
    var edgeLayer = sv('g', { class: 'edges', 'aria-hidden': 'true' });
    // Containers first (behind their tasks); then in reading order, which is also the tab order.
    var ordered = g.nodes.slice().sort(function (a, b) {
      if (a.container !== b.container) return a.container ? -1 : 1;
      return a.y - b.y || a.x - b.x;
    });
    ordered.forEach(function (n) {
      var grp = sv('g', { class: 'node unreached' + (n.container ? ' container' : ''), tabindex: '0', role: 'button', 'data-id': n.id, 'data-mark': 'unreached', transform: 'translate(' + n.x + ',' + n.y + ')' });
      grp.appendChild(sv('rect', { width: n.width, height: n.height, rx: n.type === 'start' || n.type === 'end' ? 16 : 8 }));
      var stats;
      if (n.type === 'start' || n.type === 'end') {
        grp.appendChild(sv('text', { x: n.width / 2, y: n.height / 2 + 4, 'text-anchor': 'middle', class: 'title' }, n.label));
      } else if (n.container) {
        grp.appendChild(sv('text', { x: 10, y: 17, class: 'title' }, n.label));
        stats = sv('text', { x: 10, y: 31, class: 'stats' }, n.type);
        grp.appendChild(stats);
      } else {
        grp.appendChild(sv('text', { x: 10, y: 18, class: 'title' }, n.label));
        grp.appendChild(sv('text', { x: 10, y: 33, class: 'type' }, n.type + (n.detail ? ' ' + n.detail : '')));
        stats = sv('text', { x: 10, y: 49, class: 'stats' }, '');
        grp.appendChild(stats);
      }
      var title = sv('title', {}, n.label);
      grp.appendChild(title);
      grp.addEventListener('click', function () { select(n.id); });
      grp.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); select(n.id); }
      });
      nodeLayer.appendChild(grp);
      view.nodes[n.id] = { node: n, g: grp, stats: stats };
    });
    g.edges.forEach(function (e) {
      if (!e.points.length) return;
      var grp = sv('g', { class: 'edge', 'data-id': e.id, 'data-from': e.from, 'data-to': e.to });
      var d = e.points.map(function (p, i) { return (i ? 'L' : 'M') + p[0] + ',' + p[1]; }).join(' ');
      grp.appendChild(sv('path', { d: d, 'marker-end': 'url(#arrow-plain)' }));
      if (e.label) grp.appendChild(sv('text', { x: e.label.x, y: e.label.y + 11 }, e.label.text));
      edgeLayer.appendChild(grp);
      view.edges[e.id] = grp;
    });
    svg.appendChild(edgeLayer);
    svg.appendChild(nodeLayer);
    canvas.appendChild(svg);
    view.graph = g;
    var fit = canvas.clientWidth / g.width;
    setZoom(Math.max(0.5, Math.min(1, fit)));
    labelNodes();
  }

  function setZoom(z) {
    var svg = $('graph');
    if (!svg || !view.graph) return;
    view.zoom = Math.max(0.25, Math.min(3, z));
    svg.setAttribute('width', Math.round(view.graph.width * view.zoom));
    svg.setAttribute('height', Math.round(view.graph.height * view.zoom));
  }

  function overlayOf(id) {
    return view.run && view.run.overlay.nodes[id];
  }

  function labelNodes() {
    Object.keys(view.nodes).forEach(function (id) {
      var v = view.nodes[id];
      var o = overlayOf(id);
      var mark = o ? o.mark : 'unreached';
      var parts = [v.node.label, v.node.type];
      var text;
      if (view.run) {
        parts.push(MARK_TEXT[mark]);
        if (o && o.count) parts.push('entered ' + o.count + (o.count === 1 ? ' time' : ' times'), duration(o.ms));
      }
      v.g.setAttribute('aria-label', parts.join(', '));
      v.g.setAttribute('class', 'node ' + (view.run ? mark : 'unreached') + (v.node.container ? ' container' : '') + (view.selected === id ? ' selected' : ''));
      v.g.setAttribute('data-mark', view.run ? mark : 'unreached');
      if (v.stats && view.run && v.node.type !== 'start' && v.node.type !== 'end') {
        text = o && o.count ? '×' + o.count + ' · ' + duration(o.ms) : 'not reached';
        v.stats.textContent = v.node.container ? v.node.type + ' · ' + text : text;
      }
    });
    var taken = new Set(view.run ? view.run.overlay.edges : []);
    Object.keys(view.edges).forEach(function (id) {
      var grp = view.edges[id];
      var on = taken.has(id);
      grp.setAttribute('class', 'edge' + (on ? ' taken' : ''));
      grp.setAttribute('data-taken', on ? 'true' : 'false');
      grp.firstChild.setAttribute('marker-end', on ? 'url(#arrow-taken)' : 'url(#arrow-plain)');
    });
  }

  function select(id) {
    view.selected = id;
    var v = view.nodes[id];
    if (!v) return;
    var o = overlayOf(id);
    var f, spans;
    var panel = $('details');
    panel.hidden = false;
    $('details-h').textContent = v.node.label;
    var dl = $('details-body');
    dl.textContent = '';
    var row = function (k, val) { dl.appendChild(el('dt', {}, k)); dl.appendChild(el('dd', {}, val)); };
    row('Type', v.node.type);
    if (view.graph.dsl === '1.0' && v.node.id.charAt(0) === '/') row('Task', v.node.id);
    if (v.node.detail) row('Calls', v.node.detail);
    if (o) {
      row('Status', MARK_TEXT[o.mark]);
      row('Entered', String(o.count));
      row('Time in it', duration(o.ms));
      if (o.errors) row('Errors', o.errors + (o.mark === 'failed' ? '' : ' (handled)'));
      if (o.activities || o.timers || o.children) row('Commands', [plural(o.activities, 'activity', 'activities'), plural(o.timers, 'timer', 'timers'), plural(o.children, 'child workflow', 'child workflows')].join(', '));
      f = view.run.overlay.failure;
      if (f && f.node === id) row('Failure', f.message);
      spans = (view.run.commands || {})[id] || [];
      spans.slice(-5).forEach(function (c) { row(c.kind, c.summary + (c.closedAt ? ' (' + duration(c.closedAt - c.startedAt) + (c.failed ? ', failed' : '') + ')' : ' (open)')); });
    }
    labelNodes();
  }

  // ------------------------------------------------------------------ a run's data

  // The run's input and output: sizes, whether stored, a preview; the whole value behind links
  // (megabytes of JSON are never put in the page).
  function showData(data) {
    var section = $('data');
    var body = $('data-body');
    body.textContent = '';
    section.hidden = !data || (!data.input && !data.output);
    if (section.hidden) return;
    [['input', 'Input'], ['output', 'Output']].forEach(function (pair) {
      var v = data[pair[0]];
      if (!v) return;
      var div = el('div', { class: 'value', id: 'value-' + pair[0] });
      var head = el('div');
      head.appendChild(el('strong', {}, pair[1] + ' '));
      if (v.error) {
        head.appendChild(el('span', { class: 'size' }, v.error));
        div.appendChild(head);
        body.appendChild(div);
        return;
      }
      if (v.stored) head.appendChild(el('span', { class: 'stored', title: 'held in the payload store; the history holds a reference' }, 'stored: ' + size(v.size)));
      else head.appendChild(el('span', { class: 'size' }, size(v.size)));
      head.appendChild(el('span', { class: 'size' }, (v.size >= 1000 ? ' (' + v.size.toLocaleString('en') + ' bytes)' : '') + ' · '));
      head.appendChild(el('a', { href: v.href, target: '_blank', rel: 'noopener', class: 'view' }, v.truncated ? 'View all' : 'View'));
      head.appendChild(document.createTextNode(' · '));
      head.appendChild(el('a', { href: v.href + '&download=1', download: '', class: 'download' }, 'Download'));
      div.appendChild(head);
      div.appendChild(el('pre', { 'aria-label': pair[1] + ' preview' }, v.preview + (v.truncated ? ' …' : '')));
      body.appendChild(div);
    });
  }

  // ------------------------------------------------------------------ a run

  // The calls in flight (a run stuck in a call shows as stuck: docs/stuck-calls.md).
  function showCalls(calls) {
    var box = $('calls');
    box.hidden = !calls.length;
    var list = $('calls-list');
    list.textContent = '';
    calls.forEach(function (c) {
      var node = view.nodes[c.step];
      var text = (node ? node.node.label : c.step) + ' › ' + c.function + ' → ' + c.target + ' · ' + (c.kind === 'local' ? 'local call' : c.handedOver ? 'activity (handed over from a local call)' : 'activity') +
        ' · running for ' + ageText(c.ageMs) + ' (since ' + new Date(c.startedAt).toLocaleTimeString() + ') · attempt ' + c.attempt;
      list.appendChild(el('li', { class: 'call' }, text));
    });
  }

  function ageText(ms) {
    var s = Math.floor(ms / 1000);
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  }

  function showRun(body) {
    var first = !view.run || view.run.runId !== body.runId;
    var statusChanged = !view.run || view.run.status !== body.status;
    var graphKey = body.graph.id + '@' + (body.graph.version || '') + '#' + body.graph.nodes.length;
    view.run = body;
    if (first || view.graphKey !== graphKey) { view.graphKey = graphKey; drawGraph(body.graph); }
    else labelNodes();
    $('title').textContent = body.graph.title + ' — ' + body.workflowId;
    var line = $('run-line');
    line.textContent = '';
    line.appendChild(el('span', { class: 'status ' + body.status, id: 'run-status' }, body.status));
    var ov = body.overlay;
    var text = ' · started ' + new Date(body.startTime).toLocaleString() + (body.closeTime ? ' · closed ' + new Date(body.closeTime).toLocaleString() : '');
    if (ov.current.length) text += ' · now at ' + ov.current.map(function (id) { return view.nodes[id] ? view.nodes[id].node.label : id; }).join(', ');
    line.appendChild(document.createTextNode(text + ' · '));
    if (body.instanceStatus === 'suspended') line.appendChild(el('strong', { id: 'run-suspended' }, 'suspended (no new step starts until resumed) · '));
    if (body.webUi) line.appendChild(el('a', { href: body.webUi, id: 'webui-link', target: '_blank', rel: 'noopener' }, 'Open in the Temporal Web UI'));
    if (ov.source === 'history') line.appendChild(document.createTextNode(' · drawn from the history (no worker answered: ' + (body.queryError || '') + ')'));
    if (ov.stepsNotListed) line.appendChild(document.createTextNode(' · counts cover the latest steps (' + ov.stepsNotListed + ' earlier not listed)'));
    showCalls(ov.callsInFlight || []);
    var failure = $('failure');
    failure.hidden = !ov.failure;
    if (ov.failure) failure.textContent = 'Failed' + (ov.failure.node ? ' at ' + (view.nodes[ov.failure.node] ? view.nodes[ov.failure.node].node.label : ov.failure.node) : '') + ': ' + ov.failure.message;
    var path = $('path');
    path.textContent = '';
    ov.path.forEach(function (id, i) {
      var n = view.nodes[id];
      var last = i === ov.path.length - 1;
      var cls = ov.current.indexOf(id) >= 0 && last ? 'running' : ov.failure && ov.failure.node === id && last ? 'failed' : '';
      path.appendChild(el('li', { class: cls }, n ? n.node.label + (view.graph.dsl === '1.0' && id.charAt(0) === '/' ? ' (' + id + ')' : '') : id));
    });
    showData(body.data);
    showActions(body);
    if (view.selected) select(view.selected);
    // The run list shows statuses too: refreshed when this run's changes.
    if (statusChanged && !first) loadRuns();
    document.body.setAttribute('data-run-status', body.status);
    document.body.setAttribute('data-updated', String(Date.now()));
  }

  function pollRun(workflowId, runId) {
    clearTimeout(view.timer);
    // One poll loop: an answer to an earlier poll (e.g. one in flight when an action polled again) is dropped.
    var seq = view.pollSeq = (view.pollSeq || 0) + 1;
    var url = '/api/runs/' + encodeURIComponent(workflowId) + (runId ? '?runId=' + encodeURIComponent(runId) : '');
    return getJson(url).then(function (body) {
      if (seq !== view.pollSeq) return;
      showRun(body);
      if (body.status === 'Running') view.timer = setTimeout(function () { pollRun(workflowId, body.runId); }, 1000);
    }).catch(function (err) {
      $('title').textContent = workflowId;
      var f = $('failure');
      f.hidden = false;
      f.textContent = 'Cannot show this run: ' + err.message;
    });
  }

  function showDefinition(key) {
    return getJson('/api/definitions/' + encodeURIComponent(key) + '/graph').then(function (g) {
      view.run = null;
      showData(null);
      showActions(null);
      $('title').textContent = g.title + ' (' + key + ', DSL ' + g.dsl + ')';
      $('run-line').textContent = 'Pick a run of it from the list to see it on the graph.';
      drawGraph(g);
    }).catch(function (err) {
      var f = $('failure');
      f.hidden = false;
      f.textContent = err.message;
    });
  }

  // ------------------------------------------------------------------ actions on a run

  // Shown only when the server has an operator token (config.actions) and the run's status allows
  // them: Redrive for a failed run; Cancel, Suspend or Resume, and Send event for a running one.
  function showActions(body) {
    var running = body && body.status === 'Running';
    var failed = body && body.status === 'Failed';
    var section = $('actions');
    section.hidden = !view.actions || !(running || failed);
    if (section.hidden) return;
    var token = sessionStorage.getItem(TOKEN_KEY);
    $('token-form').hidden = Boolean(token);
    $('token-set').hidden = !token;
    $('act-redrive').hidden = !failed;
    $('act-cancel').hidden = !running;
    // `suspended` while Temporal says Running; no answer from the run: both, the run decides.
    $('act-suspend').hidden = !running || body.instanceStatus === 'suspended';
    $('act-resume').hidden = !running || (body.instanceStatus !== 'suspended' && body.instanceStatus !== null);
    $('event-details').hidden = !running;
  }

  function actionResult(text, kind, link) {
    var p = $('action-result');
    p.textContent = text;
    p.className = 'action-result ' + (kind || '');
    if (link) { p.appendChild(document.createTextNode(' ')); p.appendChild(link); }
  }

  var ACTION_NAMES = { cancel: 'Cancel', suspend: 'Suspend', resume: 'Resume', events: 'Send event', redrive: 'Redrive' };

  function act(action, payload) {
    var run = view.run;
    var token = sessionStorage.getItem(TOKEN_KEY);
    if (!run) return;
    if (!token) {
      actionResult('Enter the operator token first.', 'error');
      $('operator-token').focus();
      return;
    }
    var buttons = document.querySelectorAll('#actions button');
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    actionResult(ACTION_NAMES[action] + '…');
    var body = action === 'events' ? payload : { runId: run.runId };
    fetch('/api/runs/' + encodeURIComponent(run.workflowId) + '/' + action, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer ' + token },
      body: JSON.stringify(body),
    }).then(function (r) {
      return r.json().catch(function () { return { error: r.status + ' ' + r.statusText }; }).then(function (answer) {
        if (r.status === 403 && /operator token/.test(answer.error || '')) sessionStorage.removeItem(TOKEN_KEY);
        showAnswer(action, r.ok, answer);
      });
    }).catch(function (err) {
      actionResult(ACTION_NAMES[action] + ': ' + err.message, 'error');
    }).then(function () {
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
      // The run as it is now (polling again while it runs).
      return pollRun(run.workflowId, run.runId);
    });
  }

  function showAnswer(action, ok, a) {
    var name = ACTION_NAMES[action];
    var href, d;
    if (!ok) return actionResult(name + ': ' + (a.error || 'refused'), 'error');
    if (action === 'redrive') {
      href = '/runs/' + encodeURIComponent(a.workflowId) + (a.newRunId ? '?runId=' + encodeURIComponent(a.newRunId) : '');
      return actionResult('Redriven from ' + a.step + ' (' + a.reused + ' later calls answered from the old run)' + (a.definitionVersion ? ' onto version ' + a.definitionVersion : '') + '; new run', 'ok', el('a', { href: href, id: 'redrive-link' }, a.newRunId || a.workflowId));
    }
    if (action === 'events') {
      d = (a.delivered || [])[0];
      return actionResult('Event ' + a.id + ' (' + a.type + ') delivered to ' + (d ? d.workflowId : view.run.workflowId) + '.', 'ok');
    }
    if (action === 'cancel') return actionResult(a.message, 'ok');
    actionResult(name + ' sent' + (a.status ? ': the run is ' + a.status : a.queryError ? ' (the run\u2019s state could not be queried: ' + a.queryError + ')' : '') + '.', 'ok');
  }

  function initActions() {
    $('token-form').addEventListener('submit', function (e) {
      e.preventDefault();
      var t = $('operator-token').value.trim();
      if (!t) return;
      sessionStorage.setItem(TOKEN_KEY, t);
      $('operator-token').value = '';
      actionResult('');
      showActions(view.run);
    });
    $('token-forget').addEventListener('click', function () {
      sessionStorage.removeItem(TOKEN_KEY);
      showActions(view.run);
    });
    $('act-redrive').addEventListener('click', function () { act('redrive'); });
    $('act-suspend').addEventListener('click', function () { act('suspend'); });
    $('act-resume').addEventListener('click', function () { act('resume'); });
    $('act-cancel').addEventListener('click', function () {
      if (window.confirm('Cancel ' + view.run.workflowId + '? It runs its cancellation and ends cancelled.')) act('cancel');
    });
    $('event-form').addEventListener('submit', function (e) {
      e.preventDefault();
      var text = $('event-data').value.trim();
      var payload = { type: $('event-type').value.trim(), source: $('event-source').value.trim() || undefined };
      if (text) {
        try { payload.data = JSON.parse(text); } catch (err) {
          actionResult('Send event: the data is not JSON (' + err.message + ')', 'error');
          $('event-data').focus();
          return;
        }
      }
      act('events', payload);
    });
  }

  // ------------------------------------------------------------------ start

  function init() {
    getJson('/api/config').then(function (cfg) {
      var s = $('filter-status');
      cfg.statuses.forEach(function (st) { s.appendChild(el('option', { value: st }, st)); });
      view.actions = cfg.actions === true;
      var params = new URLSearchParams(location.search);
      if (params.get('status')) s.value = params.get('status');
      route();
    });
    $('run-filter').addEventListener('change', loadRuns);
    initActions();
    $('open-run').addEventListener('submit', function (e) {
      e.preventDefault();
      var id = $('open-id').value.trim();
      if (id) location.href = '/runs/' + encodeURIComponent(id);
    });
    $('zoom-in').addEventListener('click', function () { setZoom(view.zoom * 1.25); });
    $('zoom-out').addEventListener('click', function () { setZoom(view.zoom / 1.25); });
    $('zoom-fit').addEventListener('click', function () { if (view.graph) setZoom($('canvas').clientWidth / view.graph.width); });
  }

  function route() {
    var path = location.pathname;
    var params = new URLSearchParams(location.search);
    var m = /^\/runs\/([^/]+)$/.exec(path);
    var d = /^\/definitions\/([^/]+)$/.exec(path);
    var defKey = d ? decodeURIComponent(d[1]) : null;
    var wid;
    loadDefinitions(defKey).then(function () {
      if (defKey) $('filter-definition').value = defKey.split('@')[0];
      if (params.get('definition')) $('filter-definition').value = params.get('definition');
      loadRuns();
    });
    if (m) {
      wid = decodeURIComponent(m[1]);
      $('open-id').value = wid;
      pollRun(wid, params.get('runId'));
    } else if (defKey) showDefinition(defKey);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
