/* uttt-arena report: the game-list filters and the game viewer.
 *
 * The viewer draws the steps that the arena computed with its rules engine (the
 * JSON in #report-data): for each step the state of the nine boards (b, sent only
 * where it changes), the boards where the next mark may go (p), the square and mark
 * just played (s, m), the move in words (n) and who is to move (c) as indices into
 * the shared `words`, whether it was an opening move (o), the think time (t) and
 * the bot's info (i); board.js draws the boards. It applies no rule of the game itself. Text written by bots
 * is only ever set with textContent, never parsed as HTML.
 */
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($('report-data').textContent);
  const games = new Map(data.games.map((g) => [g.id, g]));
  const words = data.words;

  const viewer = $('viewer');
  const boards = Array.from($('v-grid').querySelectorAll('.board'));
  const boardNames = boards.map((b) => b.getAttribute('aria-label'));
  const slider = $('v-slider');
  const rows = Array.from(document.querySelectorAll('#game-table tbody tr'));

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
      (step.n || []).forEach((w, k) => lines.appendChild(paragraph(words[w], k > 0 ? 'event' : '')));
    }
    $('v-caption').textContent = words[step.c] || (ply === lastPly() ? 'Game over' : '');
    let bot = '—';
    if (ply > 0) bot = step.o ? 'opening move' : (step.m === 'X' ? current.x : current.o) + ' (' + step.m + ')';
    $('v-bot').textContent = bot;
    $('v-think').textContent = typeof step.t === 'number' ? formatMs(step.t) : '—';
    $('v-info').textContent = step.i || '—';

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
    let title = words[step.c];
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
    const game = games.get(id);
    if (!game) return false;
    stop();
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
    rows.forEach((r) => r.classList.toggle('current', r.dataset.id === id));
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
  rows.forEach((row) => {
    row.addEventListener('click', (e) => {
      if (e.target instanceof Element && e.target.closest('a')) return;
      location.hash = encodeURIComponent(row.dataset.id);
    });
  });

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
    const reason = fReason.value;
    let shown = 0;
    rows.forEach((row) => {
      const d = row.dataset;
      let ok = !bot || d.x === bot || d.o === bot;
      if (ok && reason) ok = d.reason === reason;
      if (ok && result) {
        if (result === 'win' || result === 'loss') {
          const winner = d.winner === 'X' ? d.x : d.winner === 'O' ? d.o : null;
          ok = winner !== null && (result === 'win' ? winner === bot : winner !== bot);
        } else {
          ok = d.winner === result;
        }
      }
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    $('f-count').textContent = shown + ' of ' + rows.length + ' games';
  }
  [fBot, fResult, fReason].forEach((s) => s.addEventListener('change', applyFilters));
  applyFilters();

  const wanted = fromHash();
  if (!(wanted && open(wanted.id, wanted.at)) && rows.length > 0) open(rows[0].dataset.id, null, false);
  if (rows.length === 0) viewer.hidden = true;
})();
