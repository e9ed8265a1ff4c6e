/* uttt-arena live page, projector mode: every row of the event on one screen
 * that nothing scrolls. Each view (the ranking table, the round's pairings, a
 * knockout's bracket) is laid out in the room the style gives it, in as many
 * columns as fit side by side; when its rows still do not fit at the room's
 * type size it shows them a page at a time. The page shown is a function of the
 * clock: one period for the whole screen, so that every view goes round within
 * CYCLE_MS and everything changes at once; `utttProjector.hold(k)` holds page k
 * (the tests' hook: they read every page in turn).
 *
 * It moves, clones and hides the elements live.js drew; it writes no text a
 * bot controls except by cloning nodes.
 */
(function () {
  'use strict';
  /* Every row is on screen at least once in this time. */
  const CYCLE_MS = 30000;
  /* And a page stays at most this long, at least SHORTEST_MS. */
  const LONGEST_MS = 10000;
  const SHORTEST_MS = 4000;
  let views = [];
  let period = LONGEST_MS;
  let held = null;
  let shown = null;
  let timer = null;

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* The label of a view that pages: "1–22 of 65". */
  function label(holder) {
    let span = holder.querySelector(':scope > .pages');
    if (!span) {
      span = el('span', 'pages');
      holder.appendChild(span);
    }
    return span;
  }

  /* "1–22 of 65", "29 of 29". */
  function range(first, last, of) {
    return (first === last ? String(first) : first + '–' + last) + ' of ' + of;
  }

  function tallest(list) {
    return list.reduce((m, e) => Math.max(m, e.getBoundingClientRect().height), 0);
  }

  /* A table: its rows in columns of tables side by side, a page at a time. The
     drawn table stays where it is, hidden; the columns are copies of it. */
  function tableView(room, table, heading) {
    const all = Array.from(table.tBodies[0] ? table.tBodies[0].rows : []);
    const rows = all.filter((r) => !r.classList.contains('left-out'));
    table.classList.add('proj-source');
    room.querySelectorAll(':scope > .proj-columns, :scope > .proj-left').forEach((e) => e.remove());
    const holder = el('div', 'proj-columns');
    room.appendChild(holder);
    /* The bots left out: a line each under the columns, their reason in
       words, so that a long reason widens no column. */
    const left = all.filter((r) => r.classList.contains('left-out'));
    if (left.length) {
      const list = el('ul', 'left-outs proj-left');
      left.forEach((r) => {
        const li = el('li', 'left-out');
        li.appendChild(el('span', 'who', r.querySelector('th.name').textContent));
        li.appendChild(document.createTextNode(' '));
        const why = r.querySelector('.why').cloneNode(true);
        why.removeAttribute('colspan');
        const span = el('span', 'why');
        Array.from(why.childNodes).forEach((n) => span.appendChild(n));
        li.appendChild(span);
        list.appendChild(li);
      });
      room.appendChild(list);
    }
    const copy = (slice) => {
      const t = table.cloneNode(false);
      t.classList.remove('proj-source');
      t.removeAttribute('id');
      if (table.tHead) t.appendChild(table.tHead.cloneNode(true));
      const body = el('tbody');
      slice.forEach((r) => body.appendChild(r.cloneNode(true)));
      t.appendChild(body);
      return t;
    };
    /* Measured on one column holding every row: the widest row sets the width. */
    const probe = copy(rows);
    holder.appendChild(probe);
    const head = probe.tHead ? probe.tHead.getBoundingClientRect().height : 0;
    const rowHeight = Math.max(1, tallest(Array.from(probe.tBodies[0].rows)));
    const width = probe.getBoundingClientRect().width;
    holder.textContent = '';
    const gap = parseFloat(getComputedStyle(holder).columnGap) || 0;
    const cols = Math.max(1, Math.floor((room.clientWidth + gap) / (width + gap)));
    const perCol = Math.max(1, Math.floor((holder.clientHeight - head) / rowHeight));
    const perPage = cols * perCol;
    const pages = Math.max(1, Math.ceil(rows.length / perPage));
    const span = heading ? label(heading) : null;
    const leftHeight = left.length ? room.querySelector(':scope > .proj-left').getBoundingClientRect().height : 0;
    return {
      pages,
      /* The height that shows every row at once, in the columns that fit. */
      need: head + Math.ceil(rows.length / cols) * rowHeight + leftHeight + 4,
      show(k) {
        const page = k % pages;
        const slice = rows.slice(page * perPage, (page + 1) * perPage);
        const used = Math.max(1, Math.ceil(slice.length / perCol));
        const per = Math.ceil(slice.length / used);
        holder.textContent = '';
        for (let c = 0; c < used; c++) holder.appendChild(copy(slice.slice(c * per, (c + 1) * per)));
        /* Measured: now as tall as its rows, the bots left out right under them. */
        holder.classList.add('proj-fitted');
        if (span) {
          span.textContent = pages > 1 ? range(page * perPage + 1, page * perPage + slice.length, rows.length) : '';
        }
      },
    };
  }

  /* A list: its items in columns, a page at a time. The two names of a
     pairing get the same width, the widest name's, so that the "v"s line up. */
  function listView(room, list, heading) {
    const items = Array.from(list.children);
    items.forEach((li) => li.classList.remove('proj-off'));
    list.style.columnCount = '';
    list.classList.add('proj-measure', 'proj-names');
    const names = Array.from(list.querySelectorAll('.who'));
    const widest = names.reduce((m, e) => Math.max(m, e.getBoundingClientRect().width), 0);
    list.classList.remove('proj-names');
    list.style.setProperty('--who', Math.ceil(widest) + 'px');
    const itemHeight = Math.max(1, tallest(items));
    const width = items.reduce((m, e) => Math.max(m, e.getBoundingClientRect().width), 0);
    list.classList.remove('proj-measure');
    const gap = parseFloat(getComputedStyle(list).columnGap) || 16;
    const cols = Math.max(1, Math.floor((list.clientWidth + gap) / (width + gap)));
    const perCol = Math.max(1, Math.floor(list.clientHeight / itemHeight));
    const perPage = cols * perCol;
    const pages = Math.max(1, Math.ceil(items.length / perPage));
    const span = heading ? label(heading) : null;
    const title = heading ? heading.getBoundingClientRect().height : 0;
    return {
      pages,
      need: title + Math.ceil(items.length / cols) * itemHeight + 8,
      show(k) {
        const page = k % pages;
        const first = page * perPage;
        const on = Math.min(perPage, items.length - first);
        items.forEach((li, i) => li.classList.toggle('proj-off', i < first || i >= first + perPage));
        list.style.columnCount = String(Math.max(1, Math.min(cols, Math.ceil(on / perCol))));
        if (span) span.textContent = pages > 1 ? range(first + 1, first + on, items.length) : '';
      },
    };
  }

  /* A knockout's bracket: a column per round drawn so far (the rounds not drawn
     yet are named, not drawn), each column a page of its matches at a time;
     when the columns do not fit side by side, the latest rounds first, the
     earlier ones on pages of their own. */
  function bracketView(room, bracket, heading) {
    const rounds = Array.from(bracket.querySelectorAll(':scope > .bracket-round'));
    const drawn = rounds.filter((r) => !r.classList.contains('later'));
    const later = rounds.filter((r) => r.classList.contains('later'));
    rounds.forEach((r) => {
      r.classList.remove('proj-off');
      r.querySelectorAll('.match').forEach((m) => m.classList.remove('proj-off'));
    });
    let note = room.querySelector(':scope > .proj-later');
    if (!note) {
      note = el('p', 'proj-later');
      room.appendChild(note);
    }
    note.textContent = drawn.length && later.length
      ? 'Still to come: ' + later.map((r) => r.querySelector('h3').textContent).join(', ') + '.'
      : '';
    note.hidden = !note.textContent;
    if (!drawn.length) return { pages: 1, need: 0, show() {} };
    bracket.classList.add('proj-measure');
    const widths = drawn.map((r) => r.getBoundingClientRect().width);
    bracket.classList.remove('proj-measure');
    const matches = drawn.map((r) => Array.from(r.querySelectorAll('.match')));
    const matchHeight = Math.max(1, ...matches.map(tallest));
    const gap = parseFloat(getComputedStyle(bracket).columnGap) || 0;
    const listGap = parseFloat(getComputedStyle(drawn[0].querySelector('ul')).rowGap) || 0;
    const roomWidth = bracket.clientWidth;
    const perCol = Math.max(1, Math.floor((drawn[0].querySelector('ul').clientHeight + listGap) / (matchHeight + listGap)));
    /* Groups of rounds side by side, the latest first. */
    const groups = [];
    let group = [];
    let used = 0;
    for (let i = drawn.length - 1; i >= 0; i--) {
      const w = widths[i] + (group.length ? gap : 0);
      if (group.length && used + w > roomWidth) {
        groups.push(group);
        group = [];
        used = 0;
      }
      group.unshift(i);
      used += widths[i] + (group.length > 1 ? gap : 0);
    }
    groups.push(group);
    const screens = [];
    groups.forEach((g) => {
      const pages = Math.max(...g.map((i) => Math.ceil(matches[i].length / perCol)));
      for (let p = 0; p < pages; p++) screens.push([g, p]);
    });
    const span = heading ? label(heading) : null;
    return {
      pages: screens.length,
      need: 0,
      show(k) {
        const [g, p] = screens[k % screens.length];
        const parts = [];
        drawn.forEach((r, i) => {
          const on = g.includes(i);
          r.classList.toggle('proj-off', !on);
          if (!on) return;
          const n = matches[i].length;
          const pages = Math.ceil(n / perCol);
          const page = p % pages;
          matches[i].forEach((m, j) => m.classList.toggle('proj-off', Math.floor(j / perCol) !== page));
          if (pages > 1) parts.push(r.querySelector('h3').textContent + ': ' + range(page * perCol + 1, Math.min(n, (page + 1) * perCol), n));
        });
        later.forEach((r) => r.classList.add('proj-off'));
        if (span) span.textContent = screens.length > 1 ? parts.join(' · ') || 'page ' + (k % screens.length + 1) + ' of ' + screens.length : '';
      },
    };
  }

  function index() {
    return held !== null ? held : Math.floor(Date.now() / period);
  }

  function show(force) {
    const k = index();
    if (!force && k === shown) return;
    shown = k;
    views.forEach((v) => v.show(k));
  }

  /* The views of the page as it is drawn now. */
  function build() {
    const out = [];
    out.ranking = null;
    out.pairings = null;
    const ranking = document.getElementById('ranking');
    const heading = ranking.querySelector('h2');
    const event = document.getElementById('event');
    const bracket = event.hidden ? null : event.querySelector('.bracket');
    const table = event.hidden
      ? document.querySelector('#points-wrap table')
      : event.querySelector('table');
    if (bracket) {
      out.ranking = bracketView(event, bracket, heading);
    } else if (table) {
      out.ranking = tableView(event.hidden ? document.getElementById('points-wrap') : event, table, heading);
    }
    if (out.ranking) out.push(out.ranking);
    const pairings = document.getElementById('pairings');
    if (!pairings.hidden) {
      out.pairings = listView(pairings, document.getElementById('pairings-list'), pairings.querySelector('h3'));
      out.push(out.pairings);
    }
    return out;
  }

  /* Lays the views out again (the page was drawn anew, or the screen changed). */
  function layout() {
    const body = document.body;
    if (!body.classList.contains('projector')) return;
    /* How much room each view gets: first an equal share, then each in
       proportion to the height that shows all of it. */
    body.style.setProperty('--proj-rows', '1');
    body.style.setProperty('--proj-pairs', '1');
    body.classList.remove('proj-tight');
    const first = build();
    if (first.ranking && first.pairings && first.ranking.need > 0) {
      body.style.setProperty('--proj-rows', String(Math.ceil(first.ranking.need)));
      body.style.setProperty('--proj-pairs', String(Math.ceil(first.pairings.need)));
    }
    /* With the latest results first; without them when the rows need pages. */
    views = build();
    if (views.some((v) => v.pages > 1)) {
      body.classList.add('proj-tight');
      views = build();
    }
    const most = Math.max(1, ...views.map((v) => v.pages));
    period = Math.max(SHORTEST_MS, Math.min(LONGEST_MS, Math.floor(CYCLE_MS / most)));
    body.dataset.projectorPages = String(most);
    show(true);
  }

  function start() {
    if (timer === null) timer = setInterval(() => show(false), 250);
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    views = [];
    document.querySelectorAll('.proj-off').forEach((e) => e.classList.remove('proj-off'));
    document.querySelectorAll('.proj-columns, .proj-later, .proj-left').forEach((e) => e.remove());
    document.querySelectorAll('.proj-source').forEach((e) => e.classList.remove('proj-source'));
    document.querySelectorAll('#ranking .pages, #pairings .pages').forEach((e) => e.remove());
    const list = document.getElementById('pairings-list');
    if (list) list.style.columnCount = '';
  }

  let resizing = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(layout, 100);
  });

  window.utttProjector = {
    layout,
    start,
    stop,
    /* The pages of the view with the most. */
    pages: () => Math.max(1, ...views.map((v) => v.pages)),
    /* How long every view takes to go round (0: nothing pages). */
    cycleMs: () => {
      const most = Math.max(1, ...views.map((v) => v.pages));
      return most > 1 ? most * period : 0;
    },
    /* Holds page `k` still (null: back to the clock). */
    hold(k) {
      held = k === null || k === undefined ? null : Number(k);
      show(true);
      return held;
    },
  };
})();
