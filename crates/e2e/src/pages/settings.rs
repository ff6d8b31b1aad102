//! Page object: settings (see the module docs of `pages`).
