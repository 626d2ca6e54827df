//! A bounded line reader for the stdio transport: it never holds more than the message
//! limit of one line in memory, and discards the rest of an over-long line (reporting
//! its length) so the stream stays in step for the next message.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The default largest message (one stdio line or one HTTP body), in bytes.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

/// What one read of a line gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The stream ended (nothing was read).
    Eof,
    /// A whole line is in the buffer (without its `\n`).
    Read,
    /// The line was longer than the limit: this many bytes in all (without the `\n`)
    /// were read and dropped; the buffer is empty.
    TooLong(usize),
}

/// Reads one line into `buf` (cleared first), keeping at most `max` bytes. A last line
/// without `\n` counts as a line.
pub async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (any, total > max) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong(total),
                (true, false) => Line::Read,
            });
        }
        any = true;
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], at + 1, true),
            None => (available, available.len(), false),
        };
        total += chunk.len();
        if total <= max {
            buf.extend_from_slice(chunk);
        } else if !buf.is_empty() {
            // Over the limit: drop what was kept, and everything up to the newline.
            buf.clear();
            buf.shrink_to(max.min(64 * 1024));
        }
        reader.consume(used);
        if done {
            return Ok(if total > max {
                Line::TooLong(total)
            } else {
                Line::Read
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    async fn lines(input: &[u8], max: usize) -> Vec<(Line, String)> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let line = read_line(&mut reader, &mut buf, max).await.unwrap();
            if line == Line::Eof {
                return out;
            }
            out.push((line, String::from_utf8_lossy(&buf).into_owned()));
        }
    }

    #[tokio::test]
    async fn keeps_short_lines_and_drops_long_ones_whole() {
        let got = lines(b"abc\n0123456789\nxy\nlast", 5).await;
        assert_eq!(
            got,
            [
                (Line::Read, "abc".to_string()),
                (Line::TooLong(10), String::new()),
                (Line::Read, "xy".to_string()),
                (Line::Read, "last".to_string()),
            ]
        );
        assert_eq!(lines(b"", 5).await, []);
        assert_eq!(
            lines(b"12345\n123456", 5).await,
            [
                (Line::Read, "12345".to_string()),
                (Line::TooLong(6), String::new())
            ]
        );
    }
}
