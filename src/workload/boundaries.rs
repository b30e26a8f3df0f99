//! Scopes bound to one logical partition that a workload can declare: transactions
//! (transactional batch, stored procedures, triggers), unique keys and change-feed ordering
//! (docs/model.md, "Scopes bound to one logical partition").

use serde::{Deserialize, Serialize};

/// What a declared group needs from the partition key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BoundaryKind {
    /// Items written together atomically: a transactional batch or stored procedure acts on one
    /// logical partition only.
    Transaction,
    /// A unique-key constraint is enforced per logical partition.
    UniqueKey,
    /// Change-feed order is guaranteed only within one logical partition key value.
    Ordering,
    /// Not declared: a field whose values group several documents (an order's lines), found by
    /// the automatic search. Keeping it together is a plus, splitting it is only noted.
    Natural,
}

impl BoundaryKind {
    /// What breaks when a group spans logical partitions, in words.
    pub fn consequence(self) -> &'static str {
        match self {
            BoundaryKind::Transaction => {
                "a transactional batch or stored procedure acts on one logical partition only, so these items cannot be written atomically"
            }
            BoundaryKind::UniqueKey => {
                "a unique key is enforced per logical partition only, so duplicates across partitions are accepted"
            }
            BoundaryKind::Ordering => {
                "the change feed orders changes only within one logical partition key value, so consumers see this group's changes out of order"
            }
            BoundaryKind::Natural => {
                "reading a whole group, or writing it in one transactional batch, needs one request per partition"
            }
        }
    }

    /// The workload file's key for it.
    pub fn as_str(self) -> &'static str {
        match self {
            BoundaryKind::Transaction => "transactions",
            BoundaryKind::UniqueKey => "unique_keys",
            BoundaryKind::Ordering => "ordered_by",
            BoundaryKind::Natural => "natural group",
        }
    }
}

/// Natural groups: with the implicit kind, the same measurement as declared groups.
impl BoundaryKind {
    /// Whether the application declared it (a split fails) or the search found it (noted).
    pub fn declared(self) -> bool {
        self != BoundaryKind::Natural
    }
}

/// One declared group: documents with equal values at `by` must share a logical partition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Boundary {
    /// Which scope.
    pub kind: BoundaryKind,
    /// A name for messages (the transaction's name, or the paths).
    pub name: String,
    /// The properties that identify a group, as written (`/orderId`).
    pub by: Vec<String>,
}

impl Boundary {
    /// The candidate text of the group key: its paths joined into one synthetic level.
    pub fn group_spec(&self) -> String {
        self.by.join("+")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_groups_are_read_from_the_workload_file() {
        let w = crate::workload::parse(
            "transactions:\n  - {name: place order, by: [/orderNo], per_sec: 4}\nunique_keys:\n  - [/tenant, /email]\nordered_by: [/deviceId]\n",
            "w.yaml",
            false,
        )
        .unwrap();
        let got: Vec<(BoundaryKind, &str, Vec<&str>)> = w
            .boundaries
            .iter()
            .map(|b| {
                (
                    b.kind,
                    b.name.as_str(),
                    b.by.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (BoundaryKind::Transaction, "place order", vec!["/orderNo"]),
                (
                    BoundaryKind::UniqueKey,
                    "/tenant, /email",
                    vec!["/tenant", "/email"]
                ),
                (BoundaryKind::Ordering, "/deviceId", vec!["/deviceId"]),
            ]
        );
        assert_eq!(w.boundaries[1].group_spec(), "/tenant+/email");
        assert!(!w.is_empty());
    }

    #[test]
    fn a_group_without_paths_is_an_error_naming_the_field() {
        let e = crate::workload::parse("transactions:\n  - {name: t, by: []}\n", "w.yaml", false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("transactions[0].by") && e.contains("at least one path"),
            "{e}"
        );
        let e = crate::workload::parse("ordered_by: [deviceId]\n", "w.yaml", false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("must start with `/`"), "{e}");
    }
}
