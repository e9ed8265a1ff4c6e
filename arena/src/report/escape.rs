//! Escaping for everything the report embeds. Bot names, `info` text, end details
//! and stderr logs are written by untrusted programs, so none of it may reach the
//! page as markup or script.
//!
//! Two channels, two rules:
//! - text and attribute values in HTML: [`Html::text`] escapes `& < > " '`, so a value
//!   can neither open a tag nor leave its quoted attribute;
//! - data for the script: JSON inside `<script type="application/json">`, made by
//!   [`script_json`], which also escapes `<`, `>` and `&` (and U+2028/U+2029), so no
//!   string inside can close the script element or start a comment.
//!
//! Markup is built with [`Html`], whose only way to add unescaped text is
//! [`Html::raw`] with a `&'static str`: dynamic text cannot become markup by mistake.

use serde::Serialize;

/// An HTML document under construction.
#[derive(Debug, Default)]
pub struct Html(String);

impl Html {
    /// An empty buffer.
    pub fn new() -> Html {
        Html(String::new())
    }

    /// Appends markup written in this program's source.
    pub fn raw(&mut self, markup: &'static str) -> &mut Html {
        self.0.push_str(markup);
        self
    }

    /// Appends text (or an attribute value), escaped.
    pub fn text(&mut self, text: &str) -> &mut Html {
        escape_into(&mut self.0, text);
        self
    }

    /// Appends a value's `Display`, escaped.
    pub fn display(&mut self, value: impl std::fmt::Display) -> &mut Html {
        self.text(&value.to_string())
    }

    /// Appends another finished fragment.
    pub fn append(&mut self, other: Html) -> &mut Html {
        self.0.push_str(&other.0);
        self
    }

    /// Appends JSON for a `<script type="application/json">` element.
    ///
    /// # Errors
    /// The value cannot be serialized.
    pub fn json(&mut self, value: &impl Serialize) -> serde_json::Result<&mut Html> {
        self.0.push_str(&script_json(value)?);
        Ok(self)
    }

    /// The markup.
    pub fn into_string(self) -> String {
        self.0
    }
}

#[cfg(test)]
impl Html {
    /// The markup so far.
    fn as_str(&self) -> &str {
        &self.0
    }
}

/// Escapes `& < > " '` for HTML text and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// JSON that is safe inside a `<script>` element: `<`, `>` and `&` become `\u003c`,
/// `\u003e` and `\u0026`, and the line separators U+2028/U+2029 are escaped too.
/// Outside strings JSON never contains these characters, so the escapes only ever
/// land inside strings, where they mean the same character.
///
/// # Errors
/// The value cannot be serialized.
pub fn script_json(value: &impl Serialize) -> serde_json::Result<String> {
    let json = serde_json::to_string(value)?;
    let mut out = String::with_capacity(json.len() + json.len() / 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "</script><img src=x onerror=\"alert('pwned')\">&amp;<!--";

    #[test]
    fn text_cannot_open_a_tag_or_leave_an_attribute() {
        let escaped = escape(HOSTILE);
        assert_eq!(
            escaped,
            "&lt;/script&gt;&lt;img src=x onerror=&quot;alert(&#39;pwned&#39;)&quot;&gt;&amp;amp;&lt;!--"
        );
        assert!(!escaped.contains(['<', '>', '"', '\'']));
        let mut html = Html::new();
        html.raw("<td title=\"")
            .text(HOSTILE)
            .raw("\">")
            .text(HOSTILE);
        assert_eq!(html.as_str().matches('<').count(), 1);
        assert_eq!(html.as_str().matches('"').count(), 2);
    }

    #[test]
    fn script_json_cannot_close_the_script_and_reads_back_the_same() {
        let value = vec![HOSTILE.to_string(), "line\u{2028}sep\u{2029}".to_string()];
        let json = script_json(&value).unwrap();
        assert!(
            !json.contains(['<', '>', '&', '\u{2028}', '\u{2029}']),
            "{json}"
        );
        let back: Vec<String> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn unicode_and_plain_text_pass_through() {
        assert_eq!(escape("Elo ± 30 — ½ point"), "Elo ± 30 — ½ point");
        assert_eq!(script_json(&"é").unwrap(), "\"é\"");
    }
}
