//! The Azure Cosmos DB service model: effective partition keys, physical partition ranges,
//! partition counts and projected layouts.
//!
//! This module is pure: no I/O and no printing. It follows `docs/epk.md` (the exact EPK algorithm,
//! checked against the SDKs' conformance vectors in `fixtures/epk_vectors.json`) and the service
//! rules of `docs/model.md`. Partition counts, split points and layouts are estimates of
//! internal service behaviour.

pub mod billing;
pub mod epk;
pub mod layout;
pub mod limits;
pub mod murmur;
pub mod ranges;
pub mod throughput;

pub use epk::{
    component_from_json, decode_encoded, encode_component, encode_components, epk,
    epk_multihash_encoded, epk_v2_encoded, prefix_range, split_encoded, Component, Epk, EpkError,
    PkVersion,
};
pub use layout::{project_layout, Layout, LayoutItem, LayoutParams, PhysicalPartition};
pub use ranges::{initial_boundaries, overlapping, partition_index};
pub use throughput::{partition_count, ru_per_partition, CountParams, CountRule, Provisioning};
