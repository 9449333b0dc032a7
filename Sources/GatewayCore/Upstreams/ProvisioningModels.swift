/// Search criteria for the provisioning service; every criterion given is ANDed.
public struct ProvisioningQuery: Sendable, Equatable {
    /// A circular region: centre and radius in metres.
    public struct Location: Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        public var radiusMetres: Double

        public init(latitude: Double, longitude: Double, radiusMetres: Double) {
            self.latitude = latitude
            self.longitude = longitude
            self.radiusMetres = radiusMetres
        }
    }

    public var ids: [String]
    public var text: String?
    public var tag: String?
    public var location: Location?
    public var featured: Bool
    public var filters: [ProvisioningFilter]
    /// 0-based index of the first item.
    public var start: Int
    /// Page size; 0 = all.
    public var count: Int

    public init(
        ids: [String] = [], text: String? = nil, tag: String? = nil, location: Location? = nil, featured: Bool = false,
        filters: [ProvisioningFilter] = [], start: Int = 0, count: Int = 0
    ) {
        self.ids = ids
        self.text = text
        self.tag = tag
        self.location = location
        self.featured = featured
        self.filters = filters
        self.start = start
        self.count = count
    }

    /// True when the query has criteria only provisioning can evaluate.
    public var needsProvisioning: Bool {
        tag != nil || location != nil || featured || !filters.isEmpty
    }
}

/// One `field:operator:value[,value]` filter.
public struct ProvisioningFilter: Sendable, Equatable {
    public enum Operator: String, Sendable, CaseIterable {
        case equals, notEquals, greater, greaterOrEquals, less, lessOrEquals, contains, `in`
    }

    public var field: String
    public var op: Operator
    public var values: [String]

    public init(field: String, op: Operator, values: [String]) {
        self.field = field
        self.op = op
        self.values = values
    }

    /// Parses `field:operator:value[,value]`; nil when malformed.
    public init?(parsing text: String) {
        // Split on Unicode scalars, not Characters: a combining mark after ':' or ','
        // would otherwise merge with it into one grapheme.
        let scalars = Array(text.unicodeScalars)
        let parts = scalars.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty,
              let op = Operator(rawValue: Self.string(parts[1])), !parts[2].isEmpty
        else { return nil }
        let values = parts[2].split(separator: ",", omittingEmptySubsequences: false).map(Self.string)
        guard !values.contains(where: \.isEmpty), op == .in || values.count == 1 else { return nil }
        self.init(field: Self.string(parts[0]), op: op, values: values)
    }

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }

    /// The wire form, `field:operator:value[,value]`, with `%`, `:` and `,` percent-encoded
    /// inside the field and `%` and `,` inside values (GeneXus field names are free text).
    public var wireValue: String {
        Self.escape(field, ":%,") + ":" + op.rawValue + ":"
            + values.map { Self.escape($0, "%,") }.joined(separator: ",")
    }

    /// The most Unicode scalars of a field name.
    public static let fieldMaxLength = 64
    /// The most Unicode scalars of one value.
    public static let valueMaxLength = 200

    /// Whether the filter's texts are within the limits: a field of 1-64 scalars and values
    /// of 1-200, none with control characters.
    public var isWellFormed: Bool {
        func ok(_ s: String, _ max: Int) -> Bool {
            (1...max).contains(s.unicodeScalars.count)
                && !s.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        return ok(field, Self.fieldMaxLength) && !values.isEmpty && values.allSatisfy { ok($0, Self.valueMaxLength) }
            && (op == .in || values.count == 1)
    }

    private static func escape(_ text: String, _ reserved: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if reserved.unicodeScalars.contains(scalar) {
                out += String(format: "%%%02X", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// A mini app as the provisioning service describes it.
public struct ProvisioningMiniApp: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case native, web
    }

    public var id: String
    public var name: String
    public var description: String?
    public var icon: String?
    public var banner: String?
    public var card: String?
    public var metadataURL: String?
    public var entryPoint: String?
    public var servicesURL: String?
    public var signature: String?
    public var version: Int
    public var kind: Kind

    public init(
        id: String, name: String, description: String? = nil, icon: String? = nil, banner: String? = nil,
        card: String? = nil, metadataURL: String? = nil, entryPoint: String? = nil, servicesURL: String? = nil,
        signature: String? = nil, version: Int, kind: Kind
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.icon = icon
        self.banner = banner
        self.card = card
        self.metadataURL = metadataURL
        self.entryPoint = entryPoint
        self.servicesURL = servicesURL
        self.signature = signature
        self.version = version
        self.kind = kind
    }
}

/// Where and as whom the gateway calls one tenant's provisioning service.
public struct ProvisioningTarget: Sendable {
    public let tenantID: String
    public let baseURL: String
    public let superAppID: String
    public let superAppVersion: String?
    public let apiKey: SecretValue?

    /// nil when the tenant has no provisioning service.
    public init?(tenant: Tenant) {
        guard let base = tenant.provisioning.baseURL, !base.isEmpty,
              let superApp = tenant.provisioning.superAppID, !superApp.isEmpty
        else { return nil }
        tenantID = tenant.id
        baseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
        superAppID = superApp
        superAppVersion = tenant.provisioning.superAppVersion
        apiKey = tenant.provisioning.apiKey
    }
}

/// The Mini App Center style provisioning service (`OpenAPI/upstreams/provisioning.yaml`).
public protocol ProvisioningClient: Sendable {
    func search(
        _ query: ProvisioningQuery, _ target: ProvisioningTarget, deadline: ContinuousClock.Instant
    ) async throws -> [ProvisioningMiniApp]
    func miniApp(
        id: String, _ target: ProvisioningTarget, deadline: ContinuousClock.Instant
    ) async throws -> ProvisioningMiniApp
}
