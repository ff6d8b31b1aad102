//! Page object: workspace (see the module docs of `pages`).
