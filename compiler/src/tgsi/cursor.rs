//! A character cursor over one line of text, reporting errors by line and column.

use crate::error::CompileError;

/// Reads one line; every failure says where and what was expected.
pub struct Cursor {
    chars: Vec<char>,
    pos: usize,
    line: u32,
}

impl Cursor {
    /// A cursor at the start of `text`, which is line `line` (1-based).
    pub fn new(text: &str, line: u32) -> Cursor {
        Cursor {
            chars: text.chars().collect(),
            pos: 0,
            line,
        }
    }

    /// The line number.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// Skips spaces and tabs.
    pub fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.pos += 1;
        }
    }

    /// The next character, if any.
    pub fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// True at the end of the line (after blanks).
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.chars.len()
    }

    /// Consumes `c` (after blanks) if it is next.
    pub fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `c` or fails naming it.
    pub fn expect(&mut self, c: char) -> Result<(), CompileError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("'{c}'")))
        }
    }

    /// An error at the current position.
    pub fn error(&mut self, expected: &str) -> CompileError {
        self.skip_ws();
        let found = match self.peek() {
            None => "end of line".to_string(),
            Some(_) => {
                let word: String = self.chars[self.pos..]
                    .iter()
                    .take_while(|c| !c.is_whitespace() && **c != ',')
                    .take(16)
                    .collect();
                format!("'{word}'")
            }
        };
        CompileError::Parse {
            line: self.line,
            col: u32::try_from(self.pos + 1).unwrap_or(u32::MAX),
            expected: expected.to_string(),
            found,
        }
    }

    /// A word of letters, digits and underscores (may be empty).
    pub fn word(&mut self) -> String {
        self.skip_ws();
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    /// A non-empty word, or an error naming `what`.
    pub fn expect_word(&mut self, what: &str) -> Result<String, CompileError> {
        let save = self.pos;
        let w = self.word();
        if w.is_empty() {
            self.pos = save;
            Err(self.error(what))
        } else {
            Ok(w)
        }
    }

    /// A token for a number: letters, digits, `.`, `+`, `-` (for floats like `-1.5e+3`).
    pub fn number_token(&mut self) -> String {
        self.skip_ws();
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-' | '_'))
        {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    /// Moves back to `pos` (for error positions of a token just read).
    pub fn rewind(&mut self, pos: usize) {
        self.pos = pos.min(self.chars.len());
    }

    /// Current position.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// An unsigned decimal number.
    pub fn uint(&mut self, what: &str) -> Result<u32, CompileError> {
        self.skip_ws();
        let start = self.pos;
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.pos += 1;
        }
        let s: String = self.chars[start..self.pos].iter().collect();
        match s.parse::<u32>() {
            Ok(v) => Ok(v),
            Err(_) => {
                self.pos = start;
                Err(self.error(what))
            }
        }
    }
}
