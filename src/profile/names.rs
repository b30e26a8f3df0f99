//! What a property's name says it holds (docs/recommendations.md, "Names as evidence"): an
//! architect reads `tenantId`, `customerRef` or `deviceSerial` as an entity and `price`,
//! `revision` or `appVersion` as something nobody groups by. The name is split into words in
//! any of the usual casings (`camelCase`, `PascalCase`, `snake_case`, `kebab-case`,
//! `UPPER_SNAKE`, `deviceID`) and read by its head word, the last one (`orderTotal` is a total,
//! `totalOrders` is not read as one).

/// What a name says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRole {
    /// An identifier of an entity: `…Id`, `…Key`, `…Ref`, `…Code`, `…Serial`, `…Number`.
    Entity,
    /// A price, amount, size or reading.
    Measure,
    /// A count, a revision or a sequence number.
    Counter,
    /// A version.
    Version,
    /// A time or date.
    Time,
    /// A path, URL or route.
    Path,
    /// A secret or credential (`password`, `salt`, `token`): partition key values show in
    /// diagnostics, logs and request headers.
    Secret,
    /// An attribute that classifies or places a document (`status`, `category`, `city`,
    /// `zipCode`, `phoneNumber`), not the entity the application works by.
    Attribute,
    /// Nothing recognised.
    Other,
}

const ENTITY: &[&str] = &[
    "id",
    "ids",
    "key",
    "ref",
    "reference",
    "code",
    "serial",
    "uuid",
    "guid",
    "sku",
    "isbn",
    "number",
    "no",
    "nr",
    "num",
    "handle",
    "username",
    "login",
    "email",
    "slug",
];
const MEASURE: &[&str] = &[
    "price",
    "amount",
    "cost",
    "total",
    "subtotal",
    "sum",
    "balance",
    "fee",
    "tax",
    "discount",
    "freight",
    "weight",
    "mass",
    "height",
    "width",
    "length",
    "depth",
    "size",
    "bytes",
    "volume",
    "area",
    "distance",
    "duration",
    "latency",
    "elapsed",
    "temperature",
    "temp",
    "pressure",
    "humidity",
    "speed",
    "score",
    "rating",
    "percent",
    "percentage",
    "ratio",
    "lat",
    "latitude",
    "lon",
    "lng",
    "longitude",
    "altitude",
    "qty",
    "quantity",
];
const COUNTER: &[&str] = &[
    "count", "counter", "revision", "rev", "seq", "sequence", "attempt", "attempts", "retries",
    "views", "likes", "clicks", "hits", "index", "idx", "position",
];
const VERSION: &[&str] = &["version", "ver"];
const TIME: &[&str] = &[
    "timestamp",
    "ts",
    "time",
    "datetime",
    "date",
    "at",
    "on",
    "created",
    "updated",
    "modified",
    "expires",
    "expiry",
];
const PATH: &[&str] = &["path", "url", "uri", "href", "link", "route", "endpoint"];
/// Words that name an attribute of a document (what it is, where, how to reach someone), alone or
/// before an id suffix (`statusCode`, `zipCode`, `categoryId`, `phoneNumber`).
const ATTRIBUTE: &[&str] = &[
    "status",
    "state",
    "stage",
    "category",
    "categories",
    "type",
    "kind",
    "city",
    "town",
    "zip",
    "zipcode",
    "postal",
    "postcode",
    "phone",
    "mobile",
    "fax",
    "tel",
    "telephone",
    "country",
    "language",
    "lang",
    "locale",
    "currency",
    "gender",
    "color",
    "colour",
];
const SECRET: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "salt",
    "token",
    "credential",
    "credentials",
];

/// The words of a name, lowercased: `deviceID` → `device`, `id`; `HTTPStatus` → `http`,
/// `status`; `customer_ref` → `customer`, `ref`.
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// What the last property of `path` says by its name; any property on the way that names a
/// secret (`/password/hash`) makes it one.
pub fn role(path: &str) -> NameRole {
    let secret = path
        .split('/')
        .flat_map(|seg| words(seg.trim_matches('"')))
        .any(|w| SECRET.contains(&w.as_str()));
    if secret {
        return NameRole::Secret;
    }
    let last = path.rsplit('/').next().unwrap_or(path).trim_matches('"');
    let w = words(last);
    let Some(head) = w.last().map(String::as_str) else {
        return NameRole::Other;
    };
    let of = |word: &str| -> NameRole {
        if ENTITY.contains(&word) {
            NameRole::Entity
        } else if MEASURE.contains(&word) {
            NameRole::Measure
        } else if COUNTER.contains(&word) {
            NameRole::Counter
        } else if VERSION.contains(&word) {
            NameRole::Version
        } else if TIME.contains(&word) {
            NameRole::Time
        } else if PATH.contains(&word) {
            NameRole::Path
        } else {
            NameRole::Other
        }
    };
    if ATTRIBUTE.contains(&head) {
        return NameRole::Attribute;
    }
    // `zipCode`, `statusId`, `phoneNumber`, `categoryRef`: an attribute's code is that attribute.
    if ENTITY.contains(&head) && w.len() >= 2 && ATTRIBUTE.contains(&w[w.len() - 2].as_str()) {
        return NameRole::Attribute;
    }
    // `versionNumber`, `sequenceNo`: the number of a version or a sequence is that, not an id.
    if matches!(head, "number" | "no" | "nr" | "num") && w.len() >= 2 {
        let before = of(&w[w.len() - 2]);
        if matches!(before, NameRole::Counter | NameRole::Version) {
            return before;
        }
    }
    // `at`/`on` are time only as a suffix (`createdAt`, `updatedOn`), never a whole name.
    if matches!(head, "at" | "on") && w.len() < 2 {
        return NameRole::Other;
    }
    of(head)
}

/// A phrase for an exclusion reason, or `None` for names that say nothing against a key.
pub fn says_not_a_key(role: NameRole) -> Option<&'static str> {
    match role {
        NameRole::Measure => Some("a price, amount, size or reading"),
        NameRole::Counter => Some("a count, revision or sequence number"),
        NameRole::Version => Some("a version"),
        NameRole::Time => Some("a time or date (only ever a bucket after an entity)"),
        NameRole::Path => Some("a path or URL"),
        NameRole::Secret => {
            Some("a secret or credential (key values show in logs and diagnostics)")
        }
        NameRole::Attribute => Some(
            "an attribute (a status, category, place or phone number): it classifies documents, it is not the entity the application works by",
        ),
        NameRole::Entity | NameRole::Other => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attributes are not keys, whatever id suffix they carry; entities stay entities.
    #[test]
    fn attributes_are_told_from_entities() {
        for name in [
            "status",
            "orderStatus",
            "statusCode",
            "category",
            "categoryId",
            "shipTo/city",
            "address/zipCode",
            "postalCode",
            "phoneNumber",
            "mobile",
            "countryCode",
        ] {
            assert_eq!(role(name), NameRole::Attribute, "{name}");
        }
        for name in [
            "customerId",
            "tenantId",
            "orderNumber",
            "staffRef",
            "workspace_id",
        ] {
            assert_eq!(role(name), NameRole::Entity, "{name}");
        }
    }

    #[test]
    fn words_in_every_usual_casing() {
        assert_eq!(words("deviceID"), ["device", "id"]);
        assert_eq!(words("DeviceSerial"), ["device", "serial"]);
        assert_eq!(words("customer_ref"), ["customer", "ref"]);
        assert_eq!(words("ORDER_TOTAL"), ["order", "total"]);
        assert_eq!(words("app-version"), ["app", "version"]);
        assert_eq!(words("HTTPStatus"), ["http", "status"]);
        assert_eq!(words("sensor2Id"), ["sensor2", "id"]);
        assert_eq!(words("_id"), ["id"]);
    }

    #[test]
    fn names_are_read_by_their_head_word() {
        use NameRole::*;
        for (path, want) in [
            ("/tenantId", Entity),
            ("/customerRef", Entity),
            ("/deviceSerial", Entity),
            ("/account_id", Entity),
            ("/_id", Entity),
            ("/orderNumber", Entity),
            ("/price", Measure),
            ("/freight_value", Other),
            ("/orderTotal", Measure),
            ("/totalOrders", Other),
            ("/payload/sizeBytes", Measure),
            ("/revision", Counter),
            ("/sequenceNumber", Counter),
            ("/device/appVersion", Version),
            ("/versionNo", Version),
            ("/createdAt", Time),
            ("/ts", Time),
            ("/at", Other),
            ("/payload/path", Path),
            ("/\"image url\"", Path),
            ("/status", Attribute),
            ("/category", Attribute),
            ("/password/hash", Secret),
            ("/password/salt", Secret),
            ("/auth/refreshToken", Secret),
        ] {
            assert_eq!(role(path), want, "{path}");
        }
    }
}
