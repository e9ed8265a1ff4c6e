//! A bot the run left out, said for the student whose bot it is and for the room
//! that reads the page: what went wrong in a few plain words ("its bot could not
//! start"), and the run's detail with this machine's paths taken out (where the
//! teacher keeps the class's folders is not for the projector; the student knows
//! their own files by name). The words come from the run's reasons
//! (`tournament.json`'s `left_out`, grades.csv's `detail`); a reason this module
//! does not know is shown as it is, paths taken out.

use super::escape::Html;

/// A left-out bot, in words.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Said {
    /// The bot (the student's folder name).
    pub name: String,
    /// A few words: "its bot could not start".
    pub short: String,
    /// The run's detail, without paths: "SyntaxError: invalid syntax (bot.py,
    /// line 2)"; empty when the short words say it all.
    pub detail: String,
}

/// `why` said for a student: the run's reason, in the words of [`Said`].
pub fn said(name: &str, why: &str) -> Said {
    let why = without_paths(why);
    // A folder's reasons start with the folder: "…/cy: no bot found: …".
    let reason = match why.split_once(": ") {
        Some((head, rest)) if head == name || head.ends_with(&format!("/{name}")) => rest,
        _ => why.as_str(),
    };
    let after = |marker: &str| {
        reason
            .split_once(marker)
            .map_or("", |(_, rest)| rest)
            .trim()
            .to_string()
    };
    let (short, detail) = if reason.starts_with("build failed") {
        ("its code did not build", first_error(&after("):")))
    } else if reason.starts_with("its folder could not be copied") {
        ("its folder could not be copied", after("copied: "))
    } else if reason.starts_with("it could not be started") {
        let end = after("stderr ends: ");
        let detail = if end.is_empty() {
            after("started: ")
        } else {
            last_words(&end)
        };
        ("its bot could not start", detail)
    } else if reason.contains("(--exclude)") {
        ("sitting this one out (the teacher's choice)", String::new())
    } else if reason.starts_with("no bot found") {
        ("no bot found in its folder", after("no bot found: "))
    } else if reason.contains("symbolic link") {
        ("its folder holds a link to outside it", String::new())
    } else if reason.contains("is also that of") || reason.contains("names another bot") {
        ("another bot has its name: rename the folder", String::new())
    } else {
        ("left out", reason.to_string())
    };
    Said {
        name: name.to_string(),
        short: short.to_string(),
        detail,
    }
}

/// The line of a build's output a student should read first: the first that
/// says `error`, else the last that says anything (the league quotes the
/// compiler's last lines, one a line).
fn first_error(output: &str) -> String {
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| l.chars().any(char::is_alphanumeric))
        .collect();
    lines
        .iter()
        .find(|l| l.to_lowercase().contains("error"))
        .or(lines.last())
        .map_or_else(String::new, |l| (*l).to_string())
}

/// The end of a program's stderr, as the run joined its lines with ` | `:
/// the last line that says something (a traceback's error line), with the
/// file and line named before it when there is one.
fn last_words(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .split(" | ")
        .map(str::trim)
        .filter(|l| !l.is_empty() && l.chars().any(char::is_alphanumeric))
        .collect();
    let Some(last) = lines.last() else {
        return String::new();
    };
    let place = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("File \""))
        .and_then(|l| {
            let file = l.strip_prefix("File \"")?.split('"').next()?;
            let line = l.split("line ").nth(1)?.split(',').next()?;
            Some(format!(" ({file}, line {line})"))
        })
        .unwrap_or_default();
    format!("{last}{place}")
}

/// `text` with every absolute path replaced by its last part:
/// `/home/t/class/students/cy: no bot` → `cy: no bot`.
pub fn without_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('/') {
        let starts_path = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || "(\"'`=".contains(c));
        if !starts_path {
            out.push_str(&rest[..=at]);
            rest = &rest[at + 1..];
            continue;
        }
        out.push_str(&rest[..at]);
        let path_end = rest[at..]
            .find(|c: char| c.is_whitespace() || ":)\"'`,;".contains(c))
            .map_or(rest.len(), |e| at + e);
        let path = rest[at..path_end].trim_end_matches('/');
        out.push_str(path.rsplit('/').next().unwrap_or_default());
        rest = &rest[path_end..];
    }
    out.push_str(rest);
    out
}

/// The reason as one table cell's content: the short words, then the detail
/// (which the projector leaves out).
pub fn why_markup(html: &mut Html, said: &Said) {
    html.raw("<span class=\"short\">not playing: ")
        .text(&said.short)
        .raw("</span>");
    if !said.detail.is_empty() {
        html.raw("<span class=\"detail\"> (")
            .text(&said.detail)
            .raw(")</span>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_of_a_run_is_said_in_a_students_words_without_paths() {
        let cases = [
            (
                "cy",
                "/home/t/class/students/cy: no bot found: add one of main.cpp or bot.cpp (built with g++), bot.py, bot.js or an executable named bot",
                "no bot found in its folder",
                "add one of main.cpp or bot.cpp (built with g++), bot.py, bot.js or an executable named bot",
            ),
            (
                "dee",
                "build failed (exit code 1): main.cpp:1:5: error: cannot declare '::main' to be a global variable",
                "its code did not build",
                "main.cpp:1:5: error: cannot declare '::main' to be a global variable",
            ),
            (
                "fay",
                "build failed (exit code 1):\nmain.cpp: In function 'int main()':\nmain.cpp:4:3: error: 'x' was not declared in this scope\n    4 |   x = 1;\n      |   ^",
                "its code did not build",
                "main.cpp:4:3: error: 'x' was not declared in this scope",
            ),
            (
                "bob",
                "it could not be started: it exited (exit code 1) before 'ready'; stderr ends: File \"bot.py\", line 2 | def x(: | ^ | SyntaxError: invalid syntax",
                "its bot could not start",
                "SyntaxError: invalid syntax (bot.py, line 2)",
            ),
            (
                "eve",
                "it could not be started: /usr/bin/python3 /srv/class/eve/bot.py timed out before 'ready'",
                "its bot could not start",
                "python3 bot.py timed out before 'ready'",
            ),
            (
                "ann",
                "left out by hand (--exclude)",
                "sitting this one out (the teacher's choice)",
                "",
            ),
            (
                "zed",
                "/srv/class/zed: something new happened in /srv/class/zed/x",
                "left out",
                "something new happened in x",
            ),
        ];
        for (name, why, short, detail) in cases {
            let s = said(name, why);
            assert_eq!(
                (s.short.as_str(), s.detail.as_str()),
                (short, detail),
                "{why}"
            );
            assert!(!format!("{s:?}").contains("/srv"), "{s:?}");
        }
    }

    #[test]
    fn only_absolute_paths_are_cut_to_their_last_part() {
        assert_eq!(without_paths("a/b and /x/y/z: c"), "a/b and z: c");
        assert_eq!(without_paths("(/a/b/) 1/2"), "(b) 1/2");
        assert_eq!(without_paths("/"), "");
    }
}
