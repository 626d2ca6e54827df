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
    let line = read_line_edges(reader, buf, max, &mut Vec::new()).await?;
    if let Line::TooLong(_) = line {
        buf.clear();
    }
    Ok(line)
}

/// How much of each end of an over-long line [`read_line_edges`] keeps.
pub const EDGE_BYTES: usize = 1024;

/// [`read_line`], keeping the ends of a line that is too long: then `buf` holds its
/// first [`EDGE_BYTES`] and `tail` its last [`EDGE_BYTES`], so the line's JSON-RPC id
/// can still be found (and the failure given to its call alone).
pub async fn read_line_edges<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
    tail: &mut Vec<u8>,
) -> std::io::Result<Line> {
    buf.clear();
    tail.clear();
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
        let was_over = total > max;
        total += chunk.len();
        if total <= max {
            buf.extend_from_slice(chunk);
        } else {
            if !was_over {
                // Just over the limit: the tail starts from what was kept, and only the
                // head stays in the buffer (filled up from this chunk).
                tail.extend_from_slice(&buf[buf.len().saturating_sub(EDGE_BYTES)..]);
                let head = EDGE_BYTES.min(max);
                buf.truncate(head);
                let fill = head.saturating_sub(buf.len()).min(chunk.len());
                buf.extend_from_slice(&chunk[..fill]);
                buf.shrink_to(max.min(64 * 1024));
            }
            let keep = &chunk[chunk.len().saturating_sub(EDGE_BYTES)..];
            tail.extend_from_slice(keep);
            let excess = tail.len().saturating_sub(EDGE_BYTES);
            tail.drain(..excess);
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

/// The id of a JSON-RPC message of which only the ends are known (see
/// [`read_line_edges`]): a numeric `"id"` among the first members of the top-level
/// object, or as its last member.
pub fn id_from_edges(head: &[u8], tail: &[u8]) -> Option<u64> {
    head_id(head).or_else(|| tail_id(tail))
}

/// A numeric `"id"` member at depth one of the object `head` begins.
fn head_id(head: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(head)
        .or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
        .ok()?;
    let mut depth = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.checked_sub(1)?,
            '"' => {
                let start = i + 1;
                let mut end = None;
                while let Some((j, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => {
                            end = Some(j);
                            break;
                        }
                        _ => {}
                    }
                }
                let end = end?;
                if depth == 1 && &text[start..end] == "id" {
                    let rest = text[end + 1..].trim_start().strip_prefix(':')?.trim_start();
                    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    let after = rest[digits.len()..].trim_start();
                    if !digits.is_empty() && (after.starts_with(',') || after.starts_with('}')) {
                        return digits.parse().ok();
                    }
                    return None;
                }
            }
            _ => {}
        }
    }
    None
}

/// A numeric `"id"` as the last member of the object `tail` ends.
fn tail_id(tail: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(tail);
    let rest = text.trim_end().strip_suffix('}')?.trim_end();
    let digits = rest.len() - rest.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let id = &rest[rest.len() - digits..];
    let before = rest[..rest.len() - digits]
        .trim_end()
        .strip_suffix(':')?
        .trim_end();
    let before = before.strip_suffix("\"id\"")?.trim_end();
    before.ends_with(',').then(|| id.parse().ok())?
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

    #[test]
    fn the_id_of_a_long_message_is_found_at_either_end() {
        let big = "y".repeat(50);
        for (line, id) in [
            (
                format!(r#"{{"jsonrpc":"2.0","id":12,"result":{{"answer":"{big}"#),
                Some(12),
            ),
            (
                r#"{ "jsonrpc" : "2.0" , "id" : 3 , "error""#.to_string(),
                Some(3),
            ),
            // An "id" inside the result is not the message's.
            (
                format!(r#"{{"jsonrpc":"2.0","result":{{"id":9,"a":"{big}"#),
                None,
            ),
            (format!(r#"{{"jsonrpc":"2.0","result":"{big}"#), None),
            (
                r#"{"jsonrpc":"2.0","id":"abc","result":1}"#.to_string(),
                None,
            ),
        ] {
            assert_eq!(head_id(line.as_bytes()), id, "{line}");
        }
        assert_eq!(tail_id(format!(r#"{big}","id":44}}"#).as_bytes()), Some(44));
        assert_eq!(
            tail_id(format!(r#"{big}" , "id" : 5 }} "#).as_bytes()),
            Some(5)
        );
        assert_eq!(
            tail_id(format!(r#"{big}","x":{{"id":44}}}}"#).as_bytes()),
            None
        );
        assert_eq!(tail_id(format!(r#"{big}{{"id":44}}"#).as_bytes()), None);
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
        // The ends of a long line are kept when asked for.
        let line = format!("{{\"id\":7,\"result\":\"{}\"}}\nnext\n", "x".repeat(5000));
        let mut reader = BufReader::with_capacity(64, line.as_bytes());
        let (mut buf, mut tail) = (Vec::new(), Vec::new());
        let got = read_line_edges(&mut reader, &mut buf, 100, &mut tail)
            .await
            .unwrap();
        assert_eq!(got, Line::TooLong(18 + 5000 + 2));
        assert!(buf.starts_with(b"{\"id\":7,\"result\":\"xxx") && buf.len() == 100);
        assert!(tail.ends_with(b"xxx\"}") && tail.len() == EDGE_BYTES);
        let next = read_line_edges(&mut reader, &mut buf, 100, &mut tail).await;
        assert_eq!(next.unwrap(), Line::Read);
        assert_eq!(buf, b"next");
        assert_eq!(
            lines(b"12345\n123456", 5).await,
            [
                (Line::Read, "12345".to_string()),
                (Line::TooLong(6), String::new())
            ]
        );
    }
}
