//! Pure rules of Agent Canvas (no web dependencies).
