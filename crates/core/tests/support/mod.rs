//! Helpers the integration tests share.

use serde_json::Value;

/// A capture's frames: a JSON array, or a history page's `items`.
pub fn frames(src: &str) -> Vec<Value> {
    match serde_json::from_str::<Value>(src).expect("fixture is JSON") {
        Value::Array(v) => v,
        Value::Object(mut o) => match o.remove("items") {
            Some(Value::Array(v)) => v,
            _ => panic!("fixture page has no items"),
        },
        _ => panic!("unexpected fixture shape"),
    }
}
