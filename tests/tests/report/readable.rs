//! What a reader can read on a page, as the browser says it: the probe the
//! page tests install (`window.__rows`), what it read over every page of the
//! projector's views ([`Seen`]), and the projector's pages (its
//! `utttProjector` hook).
//!
//! A row is *readable* when its box is inside the screen and inside every box
//! that clips it, the element on top at its centre is the row's own, its type
//! is at least the size asked, and its text is not cut.

#![allow(dead_code)]

use std::collections::BTreeSet;

use serde_json::Value;

use super::browser::Browser;

/// Defines `window.__rows(minFont)` in the page: what is readable right now, by
/// kind, and `window.__why(selector, minFont)`: why each match is not.
pub const PROBE_JS: &str = r#"
window.__readable = function (el, minFont) {
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return 'no box';
  if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5)
    return 'outside the screen at ' + [r.left, r.top, r.right, r.bottom].map(Math.round);
  for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
    const cs = getComputedStyle(a);
    if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5)
        return 'cut by ' + a.tagName.toLowerCase() + (a.id ? '#' + a.id : '') + '.' + a.className;
    }
  }
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!top || !(top === el || el.contains(top)))
    return 'under ' + (top ? top.tagName.toLowerCase() + (top.id ? '#' + top.id : '') + '.' + top.className : 'nothing');
  const font = parseFloat(getComputedStyle(el).fontSize);
  if (font < minFont) return 'type of ' + font + ' px';
  if (el.scrollWidth > el.clientWidth + 1) return 'text cut (' + el.scrollWidth + ' > ' + el.clientWidth + ')';
  return '';
};
window.__text = (el) => (el ? el.textContent.replace(/\s+/g, ' ').trim() : '');
window.__rows = function (minFont) {
  const ok = (...els) => els.every((e) => e && window.__readable(e, minFont) === '');
  const out = { rows: [], left: [], pairs: [], byes: [], matches: [], levels: [], winner: '' };
  document.querySelectorAll('#ranking tbody tr, #league-wrap tbody tr').forEach((tr) => {
    const name = tr.querySelector('th.name');
    if (!name) return;
    if (tr.classList.contains('left-out')) {
      if (ok(name, tr.querySelector('.why'))) out.left.push(window.__text(name));
    } else if (tr.classList.contains('level')) {
      if (ok(name)) out.levels.push(window.__text(name));
    } else {
      const pts = tr.querySelector('.points, td.rating');
      if (ok(name, pts)) out.rows.push([window.__text(name), window.__text(pts)]);
    }
  });
  document.querySelectorAll('#ranking li.left-out, #league-wrap li.left-out').forEach((li) => {
    if (ok(li.querySelector('.who'), li.querySelector('.why'))) out.left.push(window.__text(li.querySelector('.who')));
  });
  document.querySelectorAll('#pairings-list li').forEach((li) => {
    const who = Array.from(li.querySelectorAll('.who'));
    if (!ok(...who)) return;
    if (li.classList.contains('bye')) out.byes.push(window.__text(who[0]));
    else out.pairs.push(who.map(window.__text));
  });
  document.querySelectorAll('#event .match:not(.tbd)').forEach((m) => {
    const who = Array.from(m.querySelectorAll('.who'));
    if (who.length && ok(...who, ...m.querySelectorAll('.pts'))) out.matches.push(who.map(window.__text));
  });
  const banner = document.getElementById('result');
  if (!banner.hidden && ok(document.getElementById('winner-name'))) out.winner = window.__text(document.getElementById('winner-name'));
  return out;
};
window.__why = function (selector, minFont) {
  return Array.from(document.querySelectorAll(selector)).map((e) => [window.__text(e).slice(0, 40), window.__readable(e, minFont)]).filter((p) => p[1] !== '').slice(0, 12);
};
true
"#;

/// What was readable over every page of the view.
#[derive(Debug, Default)]
pub struct Seen {
    pub rows: BTreeSet<(String, String)>,
    pub left: BTreeSet<String>,
    pub pairs: BTreeSet<(String, String)>,
    pub byes: BTreeSet<String>,
    pub matches: BTreeSet<(String, String)>,
    pub levels: BTreeSet<String>,
    pub winner: BTreeSet<String>,
}

impl Seen {
    pub fn add(&mut self, v: &Value) {
        let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let pair = |v: &Value| (s(&v[0]), s(&v[1]));
        let list = |k: &str| v[k].as_array().cloned().unwrap_or_default();
        self.rows.extend(list("rows").iter().map(pair));
        self.left.extend(list("left").iter().map(s));
        self.pairs.extend(list("pairs").iter().map(pair));
        self.byes.extend(list("byes").iter().map(s));
        self.matches.extend(list("matches").iter().map(pair));
        self.levels.extend(list("levels").iter().map(s));
        if !s(&v["winner"]).is_empty() {
            self.winner.insert(s(&v["winner"]));
        }
    }
}

/// The pages of the projector view, as its hook says: how many, and how long
/// the longest cycle takes.
pub fn pages(browser: &mut Browser) -> (u64, f64) {
    let v = browser.eval(
        "window.utttProjector ? [window.utttProjector.pages(), window.utttProjector.cycleMs()] : [1, 0]",
    );
    (v[0].as_u64().unwrap_or(1), v[1].as_f64().unwrap_or(0.0))
}

/// What is readable on every page of the projector's views, each held in
/// turn, in type of at least `font` px.
pub fn over_the_pages(browser: &mut Browser, font: f64) -> Seen {
    browser.eval(PROBE_JS);
    let (n, _) = pages(browser);
    let mut seen = Seen::default();
    for k in 0..n {
        if n > 1 {
            browser.eval(&format!("window.utttProjector.hold({k})"));
        }
        seen.add(&browser.eval(&format!("window.__rows({font})")));
    }
    if n > 1 {
        browser.eval("window.utttProjector.hold(null)");
    }
    seen
}
