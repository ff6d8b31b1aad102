//! One page of a list the servers page (`{items, next_page_id}`, or a bare array from older
//! servers and other backends), read tolerantly: an item that cannot be read is dropped, never
//! the page.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::de::page_parts_by;

/// A page of items and the cursor of the next page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items, in the server's order.
    pub items: Vec<T>,
    /// Cursor of the next page (`None` on the last one).
    pub next_page_id: Option<String>,
}

impl<T> Default for Page<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            next_page_id: None,
        }
    }
}

/// How one item of a [`Page`] is read from its JSON; `None` drops it.
pub trait PageItem: Sized {
    /// The item, or `None` when `v` is not one.
    fn read(v: Value) -> Option<Self>;
}

impl<'de, T: PageItem> Deserialize<'de> for Page<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (items, next_page_id) = page_parts_by(Value::deserialize(d)?, "items", T::read)
            .map_err(serde::de::Error::custom)?;
        Ok(Self {
            items,
            next_page_id,
        })
    }
}
