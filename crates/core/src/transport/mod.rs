//! Transport, sans-IO (BR-8): request plans and calls, auth headers, path and query encoding,
//! multipart bodies, dual routing (direct or through `/api/cloud-proxy`), and the decoding
//! rules every answer shares (status errors, tolerant JSON).
//!
//! | module | what |
//! |---|---|
//! | [`plan`] | `RequestPlan`, `Body`, `Route`, `ProxyEnvelope`, `RawResponse`, `Transport`, `Call` |
//! | [`auth`] | BR-8 auth headers and `X-Org-Id` |
//! | [`encode`] | path segments and queries |
//! | [`page`] | `Page<T>`: a page of items and the next page's cursor, read tolerantly |
//! | [`multipart`] | one file as a `multipart/form-data` body (uploads through the cloud proxy) |
//! | [`routing`] | `RoutingContext`, runtime base URL, "sandbox still starting" |
//! | [`decode`] | status errors, `decode_json`/`decode_unit`/`decode_bytes`/`decode_text` |
//! | `de` | tolerant deserialization helpers (`null` lists, numbers as strings) |

pub mod auth;
pub(crate) mod de;
pub mod decode;
pub mod encode;
pub mod multipart;
pub mod page;
pub mod plan;
pub mod routing;
