//! TGSI text: syntax tree and parser.

pub mod ast;
mod cursor;
pub mod parse;

pub use ast::*;
pub use parse::parse;
