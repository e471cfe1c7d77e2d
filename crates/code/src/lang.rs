//! Which grammar reads a file, chosen by its extension.

/// A language with a tree-sitter grammar (used when the `grammars` feature is on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lang {
    Rust,
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    Go,
    Java,
    CSharp,
}

impl Lang {
    /// The language of `path`, from its extension; `None` for everything else.
    pub fn of(path: &str) -> Option<Lang> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "cs" => Lang::CSharp,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::CSharp => "csharp",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lang;

    #[test]
    fn languages_come_from_extensions_in_any_case() {
        assert_eq!(Lang::of("src/App.TSX"), Some(Lang::Tsx));
        assert_eq!(Lang::of("a/b.d.ts"), Some(Lang::TypeScript));
        assert_eq!(Lang::of("web/app.jsx"), Some(Lang::JavaScript));
        assert_eq!(Lang::of("Shipment.cs"), Some(Lang::CSharp));
        assert_eq!(Lang::of("Makefile"), None);
        assert_eq!(Lang::of("schema.sql"), None);
    }
}
