//! A submission's source as the tokens the fingerprints are made of: comments
//! and whitespace dropped, every name that is not a keyword of its language
//! family made `V`, every number `N`, every string `S`. So renaming variables,
//! reflowing, recommenting or stripping comments changes nothing; what is left
//! is the program's shape.

/// The languages compared with each other: sources are only compared within a
/// family (a Python bot and a C++ bot share no tokens worth counting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// `.py`.
    Python,
    /// `.c`, `.cc`, `.cpp`, `.h`, `.hpp`.
    C,
    /// `.js`, `.mjs`, `.ts`.
    JavaScript,
    /// `.rs`.
    Rust,
    /// `.java`, `.kt`, `.cs`.
    Java,
    /// `.go`.
    Go,
}

impl Family {
    /// The family of a file, by its extension.
    pub fn of(path: &std::path::Path) -> Option<Family> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "py" => Family::Python,
            "c" | "cc" | "cpp" | "cxx" | "h" | "hh" | "hpp" => Family::C,
            "js" | "mjs" | "cjs" | "ts" => Family::JavaScript,
            "rs" => Family::Rust,
            "java" | "kt" | "cs" => Family::Java,
            "go" => Family::Go,
            _ => return None,
        })
    }

    /// Its word in similarity.csv.
    pub fn word(self) -> &'static str {
        match self {
            Family::Python => "python",
            Family::C => "c",
            Family::JavaScript => "javascript",
            Family::Rust => "rust",
            Family::Java => "java",
            Family::Go => "go",
        }
    }

    /// Whether `#` starts a comment (else `//` and `/* */` do).
    fn hash_comments(self) -> bool {
        self == Family::Python
    }

    /// The words kept as themselves: the family's keywords and the few names
    /// every program of it uses (renaming them is not a disguise).
    fn keywords(self) -> &'static [&'static str] {
        match self {
            Family::Python => &[
                "and", "as", "assert", "break", "class", "continue", "def", "del", "elif", "else",
                "except", "False", "finally", "for", "from", "global", "if", "import", "in", "is",
                "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True",
                "try", "while", "with", "yield", "self", "print", "len", "range",
            ],
            Family::C | Family::Java => &[
                "auto",
                "break",
                "case",
                "char",
                "const",
                "continue",
                "default",
                "do",
                "double",
                "else",
                "enum",
                "extern",
                "float",
                "for",
                "goto",
                "if",
                "int",
                "long",
                "return",
                "short",
                "signed",
                "sizeof",
                "static",
                "struct",
                "switch",
                "typedef",
                "union",
                "unsigned",
                "void",
                "volatile",
                "while",
                "bool",
                "class",
                "public",
                "private",
                "protected",
                "new",
                "delete",
                "this",
                "true",
                "false",
                "namespace",
                "using",
                "template",
                "std",
                "include",
                "vector",
                "string",
                "auto",
                "nullptr",
                "null",
                "final",
                "import",
                "package",
            ],
            Family::JavaScript => &[
                "break",
                "case",
                "catch",
                "class",
                "const",
                "continue",
                "default",
                "delete",
                "do",
                "else",
                "export",
                "extends",
                "false",
                "finally",
                "for",
                "function",
                "if",
                "import",
                "in",
                "instanceof",
                "let",
                "new",
                "null",
                "of",
                "return",
                "switch",
                "this",
                "throw",
                "true",
                "try",
                "typeof",
                "undefined",
                "var",
                "while",
                "yield",
                "async",
                "await",
                "require",
            ],
            Family::Rust => &[
                "as", "break", "const", "continue", "crate", "else", "enum", "false", "fn", "for",
                "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
                "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
                "unsafe", "use", "where", "while", "Some", "None", "Ok", "Err", "Vec", "Option",
                "Result",
            ],
            Family::Go => &[
                "break",
                "case",
                "chan",
                "const",
                "continue",
                "default",
                "defer",
                "else",
                "fallthrough",
                "for",
                "func",
                "go",
                "goto",
                "if",
                "import",
                "interface",
                "map",
                "package",
                "range",
                "return",
                "select",
                "struct",
                "switch",
                "type",
                "var",
                "true",
                "false",
                "nil",
            ],
        }
    }
}

/// A normalised token and the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// `V`, `N`, `S`, a keyword, or a punctuation character.
    pub text: String,
    /// 1-based line.
    pub line: u32,
}

/// The normalised tokens of `source`, a file of `family`.
pub fn tokens(source: &str, family: Family) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let keywords = family.keywords();
    let mut out = Vec::new();
    let mut line = 1u32;
    let mut i = 0;
    let count_lines = |from: usize, to: usize, chars: &[char]| {
        u32::try_from(chars[from..to].iter().filter(|&&c| c == '\n').count()).unwrap_or(0)
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if (family.hash_comments() && c == '#')
            || (!family.hash_comments() && c == '/' && next == Some('/'))
        {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if !family.hash_comments() && c == '/' && next == Some('*') {
            let start = i;
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i = (i + 2).min(chars.len());
            line += count_lines(start, i, &chars);
        } else if c == '"' || c == '\'' || (c == '`' && family == Family::JavaScript) {
            let start = i;
            let triple = family == Family::Python
                && chars.get(i + 1) == Some(&c)
                && chars.get(i + 2) == Some(&c);
            // A Rust lifetime or char literal is short; a quote that opens nothing
            // (an apostrophe in a lifetime) ends at the line's end at worst.
            i += if triple { 3 } else { 1 };
            while i < chars.len() {
                if chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if triple {
                    if chars[i] == c && chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c)
                    {
                        i += 3;
                        break;
                    }
                } else if chars[i] == c || (chars[i] == '\n' && c != '`') {
                    i += 1;
                    break;
                }
                i += 1;
            }
            i = i.min(chars.len());
            // A docstring (a string on its own as a statement) is a comment.
            let lone = family == Family::Python
                && out
                    .last()
                    .is_none_or(|t: &Token| t.text == ":" || t.line < line);
            if !(triple && lone) {
                out.push(Token {
                    text: "S".into(),
                    line,
                });
            }
            line += count_lines(start, i, &chars);
        } else if c.is_ascii_digit() {
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_')
            {
                i += 1;
            }
            out.push(Token {
                text: "N".into(),
                line,
            });
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let text = if keywords.contains(&word.as_str()) {
                word
            } else {
                "V".into()
            };
            out.push(Token { text, line });
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(source: &str, family: Family) -> Vec<String> {
        tokens(source, family).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn renamed_names_comments_and_spacing_make_the_same_tokens() {
        let a = "def best(board):\n    # pick the first\n    score = 3\n    return board[score]\n";
        let b = "def choose( b ):\n    s=3   # three\n\n    return b[s]";
        assert_eq!(texts(a, Family::Python), texts(b, Family::Python));
        let c = "int f(int x) { /* twice */ return x * 2; } // done";
        let d = "int   g(int y)\n{\n  return y*7;\n}";
        assert_eq!(texts(c, Family::C), texts(d, Family::C));
    }

    #[test]
    fn strings_are_one_token_and_docstrings_none() {
        let t = texts(
            "def f():\n    \"\"\"Doc.\"\"\"\n    return 'a#b'\n",
            Family::Python,
        );
        assert_eq!(t, ["def", "V", "(", ")", ":", "return", "S"]);
    }

    #[test]
    fn lines_follow_the_source() {
        let t = tokens("a = 1\n/* x\ny */\nb = 2", Family::C);
        assert_eq!(t.last().map(|t| t.line), Some(4));
    }
}
