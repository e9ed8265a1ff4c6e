//! A bot as a user describes it, before anything is looked up: its name, the
//! protocol it speaks, its program and arguments, its directory and environment.
//! The command line writes it as one text (`NAME=PROTOCOL:command …`, read by
//! `FromStr` in [`bot_spec`](crate::tournament::bot_spec)); a tournament file
//! fills the fields from its keys; either way
//! [`Resolver`](crate::tournament::bot_spec::Resolver) resolves the same value. The text form
//! ([`fmt::Display`]) is for people (feedback files, messages) and is never read
//! back by the arena.

use std::fmt;
use std::path::PathBuf;

use referee::dialect::Dialect;

/// Which protocol a bot speaks, when its description says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// One of the built-in engines, whatever its first word (`builtin:`): a name
    /// that is not one is refused rather than looked up on `PATH`.
    Builtin,
    /// A protocol by name (`uttt:`, `codingame:`, `riddles:`, `protocol = …`).
    Speaks(Dialect),
}

impl Protocol {
    /// The word of a prefix or a `protocol` key.
    pub fn from_word(word: &str) -> Option<Protocol> {
        if word == "builtin" {
            return Some(Protocol::Builtin);
        }
        Dialect::from_name(word).map(Protocol::Speaks)
    }

    /// The word, as [`Protocol::from_word`] reads it.
    pub fn word(self) -> &'static str {
        match self {
            Protocol::Builtin => "builtin",
            Protocol::Speaks(dialect) => dialect.name(),
        }
    }
}

/// A bot as described, not yet resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BotInput {
    /// Its name in results, when given; else derived from the command.
    pub name: Option<String>,
    /// The protocol, when given; else uttt (a built-in engine's name then means
    /// the engine).
    pub protocol: Option<Protocol>,
    /// The program (a built-in engine's name, a path, or a name on `PATH`) and
    /// its arguments, one word each.
    pub words: Vec<String>,
    /// Its own directory: it runs there, and relative paths in `words` start
    /// there (a tournament file's `dir`).
    pub dir: Option<PathBuf>,
    /// Variables added to its environment (a tournament file's `env`).
    pub env: Vec<(String, String)>,
}

impl BotInput {
    /// The command to run it with, as typed (the protocol prefix included, the
    /// name left out): what its author types after `arena check`.
    pub fn command_line(&self) -> String {
        let words = shlex::try_join(self.words.iter().map(String::as_str))
            .unwrap_or_else(|_| self.words.join(" "));
        match self.protocol {
            Some(protocol) => format!("{}:{words}", protocol.word()),
            None => words,
        }
    }
}

impl fmt::Display for BotInput {
    /// `NAME=PROTOCOL:command …`, each part only when given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = &self.name {
            write!(f, "{name}=")?;
        }
        f.write_str(&self.command_line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_text_form_says_what_the_fields_hold() {
        let bot = BotInput {
            name: Some("ada".into()),
            protocol: Some(Protocol::Speaks(Dialect::Riddles)),
            words: words(&["python3", "my bot.py", "--x=1"]),
            ..BotInput::default()
        };
        assert_eq!(bot.to_string(), "ada=riddles:python3 'my bot.py' '--x=1'");
        assert_eq!(bot.command_line(), "riddles:python3 'my bot.py' '--x=1'");
    }
}
