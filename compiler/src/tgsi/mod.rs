//! TGSI text: syntax tree and parser.

pub mod ast;
mod cursor;
mod float_addr;
pub mod parse;

pub use ast::*;
pub use float_addr::rewrite as float_address_chains;
pub use parse::parse;
