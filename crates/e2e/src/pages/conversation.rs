//! Page object: conversation (see the module docs of `pages`).
