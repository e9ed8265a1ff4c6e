/* uttt-arena report: the game list, its filters and the game viewer.
 *
 * The games come compact (the JSON in #report-data, written by
 * arena/src/report/compact.rs): per game its row of games.csv, with names and
 * texts as indices into shared tables, and its marks; board.js turns a game's
 * marks into its positions when the game is opened, and draws them. The list shows
 * a page of games at a time, so a report of 100,000 games opens as fast as one of
 * a hundred. Nothing here applies a rule of the game. Text written by bots is only
 * ever set with textContent, never parsed as HTML.
 */
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($('report-data').textContent);
  const words = data.words;
  const tables = data.tables;
  /* A game's fields, in the order compact.rs writes them. */
  const F = { id: 0, x: 1, o: 2, round: 3, pair: 4, about: 5, result: 6, outcome: 7, reason: 8, detail: 9, plies: 10, play: 11, problem: 12, transcript: 13 };
  const games = data.games;
  let byId = null;
  function find(id) {
    if (!byId) {
      byId = new Map();
      games.forEach((g, k) => byId.set(g[F.id], k));
    }
    const k = byId.get(id);
    return k === undefined ? null : games[k];
  }
  const PAGE = 100;

  const viewer = $('viewer');
  const boards = Array.from($('v-grid').querySelectorAll('.board'));
  const boardNames = boards.map((b) => b.getAttribute('aria-label'));
  const slider = $('v-slider');
  const tbody = document.querySelector('#game-table tbody');

  let current = null;
  let boardStates = [];
  let ply = 0;
  let timer = null;

  function lastPly() {
    return current ? current.steps.length - 1 : 0;
  }

  function formatMs(t) {
    if (t >= 1000) return (t / 1000).toFixed(2) + ' s';
    if (t >= 10) return t.toFixed(1) + ' ms';
    return t.toFixed(2) + ' ms';
  }

  function paragraph(text, className) {
    const p = document.createElement('p');
    p.textContent = text;
    if (className) p.className = className;
    return p;
  }

  /* `remember`: put the game and ply in the address (#G0001/12) so it can be
     shared; not done for the game opened by default, which would replace a
     section link such as #standings. */
  function render(remember = true) {
    const step = current.steps[ply];
    utttBoard.draw($('v-grid'), current.steps, boardStates, ply);

    viewer.dataset.ply = String(ply);
    $('v-ply').textContent = String(ply);
    $('v-plies').textContent = String(lastPly());
    slider.max = String(lastPly());
    slider.value = String(ply);

    const lines = $('v-lines');
    lines.textContent = '';
    if (ply === 0) {
      lines.appendChild(paragraph('Start of the game'));
    } else {
      step.n.forEach((line, k) => lines.appendChild(paragraph(line, k > 0 ? 'event' : '')));
    }
    $('v-caption').textContent = step.c || (ply === lastPly() ? 'Game over' : '');
    let bot = '—';
    if (ply > 0) bot = step.o ? 'opening move' : (step.m === 'X' ? current.x : current.o) + ' (' + step.m + ')';
    $('v-bot').textContent = bot;
    const kept = data.details || ply === 0;
    $('v-think').textContent = typeof step.t === 'number' ? formatMs(step.t) : kept ? '—' : 'not kept in a report this large';
    $('v-info').textContent = step.i || (kept ? '—' : 'not kept in a report this large');

    renderFocus(step);
    if (!remember) return;
    try {
      history.replaceState(null, '', '#' + encodeURIComponent(current.id) + '/' + ply);
    } catch (e) {
      /* some file:// contexts refuse; the address is a convenience only */
    }
  }

  /* On a phone the grid is a small overview; the boards where the next mark may go
     (every open board on a free move) are drawn large below it. Tapping a board of
     the overview shows that one instead, until the next step. */
  function renderFocus(step, picked) {
    const holder = $('v-focus-boards');
    holder.textContent = '';
    let show = Array.from(step.p, (d) => Number(d) - 1);
    let title = step.c;
    if (typeof picked === 'number') {
      show = [picked];
      title = 'Board you picked';
    } else if (show.length === 0 && ply > 0) {
      show = [Math.floor(step.s / 9)];
      title = 'Last move';
    }
    $('v-focus-title').textContent = title;
    show.forEach((b) => {
      const wrap = document.createElement('div');
      wrap.className = 'focus-board';
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = boardNames[b];
      const copy = boards[b].cloneNode(true);
      copy.removeAttribute('role');
      wrap.appendChild(name);
      wrap.appendChild(copy);
      holder.appendChild(wrap);
    });
  }

  function go(target) {
    if (!current) return;
    const next = Math.max(0, Math.min(lastPly(), target));
    if (next === ply && viewer.dataset.ply === String(ply)) return;
    ply = next;
    render();
  }

  function stop() {
    if (timer !== null) {
      clearInterval(timer);
      timer = null;
      $('v-play').setAttribute('aria-label', 'Play');
      $('v-play').classList.remove('playing');
    }
  }

  function play() {
    if (timer !== null) {
      stop();
      return;
    }
    if (ply === lastPly()) go(0);
    $('v-play').setAttribute('aria-label', 'Pause');
    $('v-play').classList.add('playing');
    timer = setInterval(() => {
      if (ply >= lastPly()) stop();
      else go(ply + 1);
    }, 650);
  }

  function open(id, atPly, remember = true) {
    const row = find(id);
    if (!row) return false;
    stop();
    const game = {
      id: row[F.id],
      x: data.bots[row[F.x]],
      o: data.bots[row[F.o]],
      about: 'Round ' + row[F.round] + ' · pair ' + row[F.pair] + ' · ' + words[row[F.about]],
      result: words[row[F.result]],
      problem: row[F.problem],
      transcript: row[F.transcript],
      steps: utttBoard.steps(row[F.play], tables),
    };
    current = game;
    boardStates = utttBoard.states(game.steps);
    const end = game.steps.length - 1;
    ply = typeof atPly === 'number' && atPly >= 0 ? Math.min(atPly, end) : end;
    $('v-title').textContent = 'Game ' + game.id;
    const players = $('v-players');
    players.textContent = '';
    [['x', 'X ', game.x], ['o', 'O ', game.o]].forEach(([cls, mark, name], k) => {
      if (k > 0) players.appendChild(document.createTextNode(' vs '));
      const span = document.createElement('span');
      span.className = cls;
      span.textContent = mark + name;
      players.appendChild(span);
    });
    $('v-about').textContent = game.about;
    $('v-result').textContent = game.result;
    const problem = $('v-problem');
    problem.hidden = !game.problem;
    problem.textContent = game.problem ? 'This game does not replay cleanly: ' + game.problem : '';
    const transcript = $('v-transcript');
    transcript.hidden = !game.transcript;
    transcript.open = false;
    transcript.querySelector('pre').textContent = game.transcript || '';
    markCurrent();
    viewer.dataset.game = id;
    render(remember);
    return true;
  }

  function fromHash() {
    const raw = location.hash.slice(1);
    if (!raw) return null;
    const cut = raw.lastIndexOf('/');
    let id = raw;
    let at = null;
    if (cut > 0 && /^\d+$/.test(raw.slice(cut + 1))) {
      id = raw.slice(0, cut);
      at = Number(raw.slice(cut + 1));
    }
    try {
      id = decodeURIComponent(id);
    } catch (e) {
      return null;
    }
    return { id, at };
  }

  function viewerInView() {
    const r = viewer.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  }

  /* Arrow keys, Home and End step the game while the viewer has the focus, or while
     nothing has it and the viewer is on screen; form fields keep their own keys. */
  document.addEventListener('keydown', (e) => {
    if (!current || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target;
    if (target instanceof Element && target.closest('select, textarea, input')) return;
    const active = document.activeElement;
    const inViewer = active instanceof Element && viewer.contains(active);
    const idle = !active || active === document.body || active === document.documentElement;
    if (!inViewer && !(idle && viewerInView())) return;
    const moves = {
      ArrowLeft: () => go(ply - 1),
      ArrowRight: () => go(ply + 1),
      Home: () => go(0),
      End: () => go(lastPly()),
    };
    const action = moves[e.key];
    if (!action) return;
    e.preventDefault();
    stop();
    action();
  });

  slider.addEventListener('input', () => {
    stop();
    go(Number(slider.value));
  });
  $('v-first').addEventListener('click', () => { stop(); go(0); });
  $('v-prev').addEventListener('click', () => { stop(); go(ply - 1); });
  $('v-next').addEventListener('click', () => { stop(); go(ply + 1); });
  $('v-last').addEventListener('click', () => { stop(); go(lastPly()); });
  $('v-play').addEventListener('click', play);
  boards.forEach((board, b) => {
    board.addEventListener('click', () => {
      if (!current || getComputedStyle($('v-focus')).display === 'none') return;
      renderFocus(current.steps[ply], b);
      $('v-focus').scrollIntoView({ block: 'start' });
    });
  });

  window.addEventListener('hashchange', () => {
    const wanted = fromHash();
    if (!wanted || !open(wanted.id, wanted.at)) return;
    viewer.focus({ preventScroll: true });
    if (!viewerInView()) viewer.scrollIntoView({ block: 'start' });
  });
  tbody.addEventListener('click', (e) => {
    if (!(e.target instanceof Element) || e.target.closest('a')) return;
    const row = e.target.closest('tr');
    if (row && row.dataset.id) location.hash = encodeURIComponent(row.dataset.id);
  });

  /* The list: the games that pass the filters, a page at a time. */
  let shown = games.map((g, k) => k);
  let page = 0;

  function markCurrent() {
    tbody.querySelectorAll('tr').forEach((r) => r.classList.toggle('current', !!current && r.dataset.id === current.id));
  }

  function cell(text, className, title) {
    const td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    if (title) td.title = title;
    return td;
  }

  function listRow(g) {
    const [winner, score] = data.outcomes[g[F.outcome]];
    const tr = document.createElement('tr');
    const d = tr.dataset;
    d.id = g[F.id];
    d.x = data.bots[g[F.x]];
    d.o = data.bots[g[F.o]];
    d.winner = winner;
    d.reason = words[g[F.reason]];
    const first = document.createElement('td');
    const link = document.createElement('a');
    link.href = '#' + encodeURIComponent(d.id);
    link.textContent = d.id;
    first.appendChild(link);
    if (g[F.problem]) {
      const bad = document.createElement('span');
      bad.className = 'fault';
      bad.title = 'does not replay cleanly';
      bad.textContent = '!';
      first.append(' ', bad);
    }
    tr.append(first,
      cell(d.x, winner === 'X' ? 'winner' : ''),
      cell(d.o, winner === 'O' ? 'winner' : ''),
      cell(score),
      cell(d.reason, '', words[g[F.detail]]),
      cell(String(g[F.plies])));
    return tr;
  }

  function renderList() {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.max(0, Math.min(page, pages - 1));
    const from = page * PAGE;
    const part = shown.slice(from, from + PAGE);
    tbody.replaceChildren(...part.map((k) => listRow(games[k])));
    markCurrent();
    $('g-range').textContent = shown.length === 0 ? 'no games'
      : (from + 1).toLocaleString('en') + '–' + (from + part.length).toLocaleString('en') + ' of ' + shown.length.toLocaleString('en');
    $('g-prev').disabled = page === 0;
    $('g-next').disabled = page >= pages - 1;
    $('g-pager').hidden = pages <= 1;
  }
  $('g-prev').addEventListener('click', () => { page -= 1; renderList(); });
  $('g-next').addEventListener('click', () => { page += 1; renderList(); });

  /* Filters: by bot, by result (from the chosen bot's side, or by colour), by reason. */
  const fBot = $('f-bot');
  const fResult = $('f-result');
  const fReason = $('f-reason');
  function applyFilters() {
    const bot = fBot.value;
    Array.from(fResult.options).forEach((o) => {
      if (o.value === 'win' || o.value === 'loss') o.disabled = !bot;
    });
    if (!bot && (fResult.value === 'win' || fResult.value === 'loss')) fResult.value = '';
    const result = fResult.value;
    const reason = words.indexOf(fReason.value);
    const botId = data.bots.indexOf(bot);
    shown = [];
    games.forEach((g, k) => {
      let ok = !bot || g[F.x] === botId || g[F.o] === botId;
      if (ok && fReason.value) ok = g[F.reason] === reason;
      if (ok && result) {
        const outcome = g[F.outcome];
        if (result === 'win' || result === 'loss') {
          const winner = outcome === 0 ? g[F.x] : outcome === 1 ? g[F.o] : null;
          ok = winner !== null && (result === 'win' ? winner === botId : winner !== botId);
        } else {
          ok = data.outcomes[outcome][0] === result;
        }
      }
      if (ok) shown.push(k);
    });
    page = 0;
    renderList();
    $('f-count').textContent = shown.length.toLocaleString('en') + ' of ' + games.length.toLocaleString('en') + ' games';
  }
  [fBot, fResult, fReason].forEach((s) => s.addEventListener('change', applyFilters));
  applyFilters();

  const wanted = fromHash();
  if (!(wanted && open(wanted.id, wanted.at)) && games.length > 0) open(games[0][F.id], null, false);
  if (games.length === 0) viewer.hidden = true;
})();
