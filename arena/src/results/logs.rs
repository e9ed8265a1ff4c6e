//! `logs/<bot>.stderr.log`: what each bot wrote to stderr, appended process by
//! process, capped, and read back from its end by the report and the live page.
//!
//! The text is the bot's own choice, so it is only ever appended to a plain file
//! of the results directory, never through a link ([`nofollow`](super::nofollow)).

use std::io::{self, Write as _};
use std::path::Path;

use super::nofollow::{self, Access};

/// The folder of the logs inside a results directory.
pub const LOGS_DIR: &str = "logs";

/// The name of `bot`'s log file in [`LOGS_DIR`].
pub fn file_name(bot: &str) -> String {
    format!("{bot}.stderr.log")
}

/// Appends `text` to `bot`'s log in `log_dir` (`<results>/logs`), cut so the file
/// stays within `cap` bytes. Best effort: logging never fails a game, so a log
/// that cannot be written (a link planted in its place, a full disk) is skipped.
pub fn append(log_dir: &Path, bot: &str, text: &str, cap: u64) {
    let (Some(root), Some(logs)) = (log_dir.parent(), log_dir.file_name()) else {
        return;
    };
    let rel = Path::new(logs).join(file_name(bot));
    let write = || -> io::Result<()> {
        nofollow::create_dir_in(root, Path::new(logs))?;
        let mut file = nofollow::open_in(root, &rel, Access::Append)?;
        let size = file.metadata()?.len();
        let room = usize::try_from(cap.saturating_sub(size)).unwrap_or(usize::MAX);
        let bytes = &text.as_bytes()[..text.len().min(room)];
        if !bytes.is_empty() {
            file.write_all(bytes)?;
        }
        Ok(())
    };
    let _ = write();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail(dir: &Path, bot: &str, max: u64) -> io::Result<(Vec<u8>, u64)> {
        nofollow::read_tail_in(dir, &Path::new(LOGS_DIR).join(file_name(bot)), max)
    }

    #[test]
    fn a_log_grows_to_its_cap_and_a_link_in_its_place_receives_nothing() {
        let results = tempfile::tempdir().unwrap();
        let logs = results.path().join(LOGS_DIR);
        append(&logs, "bot", "0123456789\n", 16);
        append(&logs, "bot", "abcdefghij\n", 16);
        append(&logs, "bot", "more\n", 16);
        assert_eq!(
            tail(results.path(), "bot", 100).unwrap(),
            (b"0123456789\nabcde".to_vec(), 0)
        );
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("crontab");
        std::fs::write(&target, "").unwrap();
        std::os::unix::fs::symlink(&target, logs.join("evil.stderr.log")).unwrap();
        append(&logs, "evil", "* * * * * root sh\n", 1 << 20);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
        assert!(tail(results.path(), "evil", 100).is_err());
    }
}
