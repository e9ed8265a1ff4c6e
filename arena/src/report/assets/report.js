/* uttt-arena report: the game list and its filters; the viewer is viewer.js.
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

  const viewer = utttViewer.attach({
    missing: data.details ? null : 'not kept in a report this large',
    onStep(game, ply) {
      try {
        history.replaceState(null, '', '#' + encodeURIComponent(game.id) + '/' + ply);
      } catch (e) {
        /* some file:// contexts refuse; the address is a convenience only */
      }
    },
  });
  const tbody = document.querySelector('#game-table tbody');

  /* Opens game `id` of the list in the viewer; false when there is none. */
  function open(id, atPly, remember = true) {
    const row = find(id);
    if (!row) return false;
    viewer.open({
      id: row[F.id],
      x: data.bots[row[F.x]],
      o: data.bots[row[F.o]],
      about: 'Round ' + row[F.round] + ' · pair ' + row[F.pair] + ' · ' + words[row[F.about]],
      result: words[row[F.result]],
      problem: row[F.problem],
      transcript: row[F.transcript],
      steps: utttBoard.steps(row[F.play], tables),
    }, atPly, remember);
    showPageOf(byId.get(id));
    markCurrent();
    return true;
  }

  /* Turns the list to the page holding game `k` (opened from a link or the address),
     when the filters let it through. */
  function showPageOf(k) {
    const at = shown.indexOf(k);
    if (at < 0 || Math.floor(at / PAGE) === page) return;
    page = Math.floor(at / PAGE);
    renderList();
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

  window.addEventListener('hashchange', () => {
    const wanted = fromHash();
    if (!wanted || !open(wanted.id, wanted.at)) return;
    viewer.element.focus({ preventScroll: true });
    if (!viewer.inView()) viewer.element.scrollIntoView({ block: 'start' });
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
    const current = viewer.current();
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
  if (wanted && open(wanted.id, wanted.at)) {
    /* report.html#G0009: the browser finds no element of that id to scroll to;
       the game it names is in the viewer, so go there (once the layout is done). */
    requestAnimationFrame(() => viewer.element.scrollIntoView({ block: 'start' }));
  } else if (games.length > 0) {
    open(games[0][F.id], null, false);
  }
  if (games.length === 0) viewer.element.hidden = true;
})();
