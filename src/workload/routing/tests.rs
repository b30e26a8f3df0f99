//! Unit tests of `workload/routing.rs`.

use super::*;

fn key(spec: &str) -> Candidate {
    parse_candidate(spec).unwrap()
}

fn f(items: &[(&str, FilterOp)]) -> Vec<(String, FilterOp)> {
    items.iter().map(|(p, op)| (p.to_string(), *op)).collect()
}

use FilterOp::{Eq, In, Range};

fn layout_ctx(fanout: &dyn Fn(usize) -> f64) -> RoutingContext<'_> {
    RoutingContext {
        physical_partitions: 10,
        prefix_fanout: fanout,
    }
}

/// The docs' example: `/TenantId>/UserId>/SessionId` over 10 partitions, where a tenant
/// prefix overlaps 1.5 partitions on average and a tenant+user prefix 1.
#[test]
fn hierarchical_docs_example() {
    let c = key("/TenantId>/UserId>/SessionId");
    let fanout = |k: usize| if k == 1 { 1.5 } else { 1.0 };
    let ctx = layout_ctx(&fanout);

    let r = route(&c, &f(&[("/TenantId", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Targeted);
    assert_eq!(r.partitions_touched, 1.5);
    assert_eq!(r.lookups, 1);
    assert_eq!(
        r.reason,
        "filter fixes /TenantId but not /UserId: prefix query over 1 of 3 levels"
    );

    let r = route(&c, &f(&[("/UserId", Eq), ("/TenantId", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Targeted);
    assert_eq!(r.partitions_touched, 1.0);
    assert_eq!(
        r.reason,
        "filter fixes /TenantId, /UserId but not /SessionId: prefix query over 2 of 3 levels"
    );

    let r = route(
        &c,
        &f(&[("/TenantId", Eq), ("/UserId", Eq), ("/SessionId", Eq)]),
        &ctx,
    );
    assert_eq!(r.class, RoutingClass::Single);
    assert_eq!((r.partitions_touched, r.lookups), (1.0, 1));
    assert_eq!(
        r.reason,
        "filter fixes all 3 levels: single-partition query"
    );

    for only in ["/UserId", "/SessionId"] {
        let r = route(&c, &f(&[(only, Eq)]), &ctx);
        assert_eq!(r.class, RoutingClass::Fanout, "{only}");
        assert_eq!((r.partitions_touched, r.lookups), (10.0, 10));
        assert_eq!(
            r.reason,
            "filter does not fix the first level /TenantId: fan-out to every physical \
             partition"
        );
    }

    // Skipping the middle level only uses the first.
    let r = route(&c, &f(&[("/TenantId", Eq), ("/SessionId", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Targeted);
    assert_eq!(r.partitions_touched, 1.5);

    // IN on the tenant: 4 prefixes × 1.5 = 6 partitions.
    let r = route(&c, &f(&[("/TenantId", In(4))]), &ctx);
    assert_eq!(
        (r.class, r.partitions_touched, r.lookups),
        (RoutingClass::Targeted, 6.0, 4)
    );
    assert!(r
        .reason
        .ends_with("prefix query over 1 of 3 levels, 4 prefixes"));
    // 10 tenants × 1 + user: capped at the 10 partitions.
    let r = route(&c, &f(&[("/TenantId", In(20)), ("/UserId", Eq)]), &ctx);
    assert_eq!(r.partitions_touched, 10.0);
    // A range on the second level stops the prefix there.
    let r = route(&c, &f(&[("/TenantId", Eq), ("/UserId", Range)]), &ctx);
    assert_eq!(
        r.reason,
        "filter fixes /TenantId but not /UserId (range only): prefix query over 1 of 3 levels"
    );
    // Full key through IN lists: 2 × 3 = 6 lookups.
    let r = route(
        &c,
        &f(&[("/TenantId", In(2)), ("/UserId", Eq), ("/SessionId", In(3))]),
        &ctx,
    );
    assert_eq!(
        (r.class, r.partitions_touched, r.lookups),
        (RoutingClass::Targeted, 6.0, 6)
    );
}

#[test]
fn two_level_hierarchical() {
    let c = key("/tenantId>/id");
    let ctx = RoutingContext::uniform(4);
    let r = route(&c, &f(&[("/tenantId", Eq)]), &ctx);
    assert_eq!(
        (r.class, r.partitions_touched),
        (RoutingClass::Targeted, 1.0)
    );
    assert_eq!(
        r.reason,
        "filter fixes /tenantId but not /id: prefix query over 1 of 2 levels"
    );
    let r = route(&c, &f(&[("/tenantId", Eq), ("/id", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Single);
    let r = route(&c, &f(&[("/id", Eq)]), &ctx);
    assert_eq!((r.class, r.partitions_touched), (RoutingClass::Fanout, 4.0));
    // Bad layout values are treated as 1.
    let nan = |_: usize| f64::NAN;
    let zero = |_: usize| 0.0;
    for bad in [&nan as &dyn Fn(usize) -> f64, &zero] {
        let ctx = RoutingContext {
            physical_partitions: 4,
            prefix_fanout: bad,
        };
        let r = route(&c, &f(&[("/tenantId", Eq)]), &ctx);
        assert_eq!(r.partitions_touched, 1.0);
    }
}

#[test]
fn single_keys() {
    let c = key("/tenantId");
    let ctx = RoutingContext::uniform(10);
    let r = route(&c, &f(&[("/tenantId", Eq), ("/x", Range)]), &ctx);
    assert_eq!(
        r,
        Routing {
            class: RoutingClass::Single,
            partitions_touched: 1.0,
            lookups: 1,
            reason: "filter fixes the key: single-partition query".into()
        }
    );
    let r = route(&c, &f(&[("/tenantId", In(5))]), &ctx);
    assert_eq!(
        (r.class, r.partitions_touched, r.lookups),
        (RoutingClass::Targeted, 5.0, 5)
    );
    assert_eq!(
        r.reason,
        "filter fixes the key with IN lists: 5 key values, targeted lookups"
    );
    // More IN values than partitions: every partition at most.
    let r = route(&c, &f(&[("/tenantId", In(5))]), &RoutingContext::uniform(3));
    assert_eq!((r.partitions_touched, r.lookups), (3.0, 5));
    let r = route(&c, &f(&[("/userId", Eq)]), &ctx);
    assert_eq!(
        (r.class, r.partitions_touched, r.lookups),
        (RoutingClass::Fanout, 10.0, 10)
    );
    assert_eq!(
        r.reason,
        "filter does not fix /tenantId: fan-out to every physical partition"
    );
    let r = route(&c, &f(&[("/tenantId", Range)]), &ctx);
    assert_eq!(r.class, RoutingClass::Fanout);
    assert_eq!(
        r.reason,
        "filter does not fix /tenantId (range only): fan-out to every physical partition"
    );
    // Paths match by property names, not spelling; nested paths work.
    let r = route(&c, &f(&[("/\"tenantId\"", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Single);
    let r = route(&key("/device/region"), &f(&[("/device/region", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Single);
    let r = route(&key("/device/region"), &f(&[("/device", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Fanout);
    // Zero partitions count as one.
    let r = route(&c, &f(&[("/userId", Eq)]), &RoutingContext::uniform(0));
    assert_eq!((r.partitions_touched, r.lookups), (1.0, 1));
}

#[test]
fn synthetic_keys() {
    let c = key("/tenantId+/userId");
    let ctx = RoutingContext::uniform(10);
    let r = route(&c, &f(&[("/tenantId", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Fanout);
    assert_eq!(
        r.reason,
        "filter fixes /tenantId but not /userId: fan-out to every physical partition"
    );
    let r = route(&c, &f(&[("/userId", Eq), ("/tenantId", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Single);
    let r = route(&c, &f(&[("/userId", In(2)), ("/tenantId", In(3))]), &ctx);
    assert_eq!(
        (r.class, r.partitions_touched, r.lookups),
        (RoutingClass::Targeted, 6.0, 6)
    );
}

#[test]
fn hashed_keys() {
    let c = key("/tenantId+hash(/id)%16");
    let ctx = RoutingContext::uniform(10);
    let r = route(&c, &f(&[("/tenantId", Eq)]), &ctx);
    assert_eq!(
        (r.class, r.partitions_touched, r.lookups),
        (RoutingClass::Targeted, 10.0, 16)
    );
    assert_eq!(
        r.reason,
        "filter fixes /tenantId but not hash(/id)%16: 16 targeted lookups, one per bucket"
    );
    let r = route(&c, &f(&[("/tenantId", Eq)]), &RoutingContext::uniform(40));
    assert_eq!(r.partitions_touched, 16.0);
    let r = route(&c, &f(&[("/tenantId", Eq), ("/id", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Single);
    // IN on the tenant multiplies the buckets: 3 × 16 = 48.
    let r = route(
        &c,
        &f(&[("/tenantId", In(3))]),
        &RoutingContext::uniform(100),
    );
    assert_eq!((r.partitions_touched, r.lookups), (48.0, 48));
    assert!(
        r.reason.ends_with("(3 IN values × buckets)"),
        "{}",
        r.reason
    );
    // IN on the hashed path: at most that many suffixes.
    let r = route(&c, &f(&[("/tenantId", Eq), ("/id", In(4))]), &ctx);
    assert_eq!((r.class, r.lookups), (RoutingClass::Targeted, 4));
    let r = route(
        &key("/t+hash(/id)%2"),
        &f(&[("/t", Eq), ("/id", In(9))]),
        &ctx,
    );
    assert_eq!(r.lookups, 2);
    // Without the tenant: fan-out.
    let r = route(&c, &f(&[("/id", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Fanout);
    // A hash-only key has only N values.
    let r = route(&key("hash(/id)%4"), &f(&[("/x", Eq)]), &ctx);
    assert_eq!(
        (r.class, r.partitions_touched, r.lookups),
        (RoutingClass::Targeted, 4.0, 4)
    );
    assert_eq!(
        r.reason,
        "filter does not fix hash(/id)%4: 4 targeted lookups, one per bucket"
    );
    // Hash inside a hierarchical level.
    let c = key("/tenantId>/userId+hash(/id)%4");
    let r = route(&c, &f(&[("/tenantId", Eq), ("/userId", Eq)]), &ctx);
    assert_eq!((r.class, r.lookups), (RoutingClass::Targeted, 4));
    let r = route(&c, &f(&[("/tenantId", Eq)]), &ctx);
    assert_eq!(
        r.reason,
        "filter fixes /tenantId but not /userId: prefix query over 1 of 2 levels"
    );
}

#[test]
fn time_keys() {
    let c = key("/deviceId+day(/ts)");
    let ctx = RoutingContext::uniform(8);
    let r = route(&c, &f(&[("/deviceId", Eq), ("/ts", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Single);
    let r = route(&c, &f(&[("/deviceId", Eq), ("/ts", In(2))]), &ctx);
    assert_eq!((r.class, r.lookups), (RoutingClass::Targeted, 2));
    let r = route(&c, &f(&[("/deviceId", Eq), ("/ts", Range)]), &ctx);
    assert_eq!(r.class, RoutingClass::Fanout);
    assert_eq!(
        r.reason,
        "filter fixes /deviceId but not day(/ts) (a range on /ts covers an unknown number of \
         buckets): fan-out to every physical partition"
    );
    let r = route(&c, &f(&[("/deviceId", Eq)]), &ctx);
    assert_eq!(r.class, RoutingClass::Fanout);
}

#[test]
fn point_reads() {
    let known = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let by = known(&["/tenantId", "/id"]);
    assert_eq!(point_read_route(&key("/id"), &by), None);
    assert_eq!(point_read_route(&key("/tenantId"), &by), None);
    assert_eq!(point_read_route(&key("/tenantId>/id"), &by), None);
    assert_eq!(point_read_route(&key("/tenantId+hash(/id)%16"), &by), None);
    assert_eq!(point_read_route(&key("/\"tenantId\"+/id"), &by), None);
    assert_eq!(
        point_read_route(&key("/tenantId>/userId>/sessionId"), &by).unwrap(),
        "key /tenantId>/userId>/sessionId needs /userId, /sessionId, which point reads do not \
         know (they know /tenantId, /id): they become queries"
    );
    assert_eq!(
        point_read_route(&key("/tenantId+day(/ts)"), &by).unwrap(),
        "key /tenantId+day(/ts) needs /ts (for day(/ts)), which point reads do not know \
         (they know /tenantId, /id): they become queries"
    );
    assert!(point_read_route(&key("/tenantId+day(/ts)"), &known(&["/tenantId", "/ts"])).is_none());
    assert_eq!(
        point_read_route(&key("hash(/userId)%8"), &[]).unwrap(),
        "key hash(/userId)%8 needs /userId (for hash(/userId)%8), which point reads do not \
         know (they know nothing): they become queries"
    );
}

#[test]
fn class_names() {
    assert_eq!(
        serde_json::to_string(&RoutingClass::Fanout).unwrap(),
        "\"fanout\""
    );
    assert_eq!(RoutingClass::Targeted.to_string(), "targeted");
    assert_eq!(RoutingClass::Single.as_str(), "single");
}
