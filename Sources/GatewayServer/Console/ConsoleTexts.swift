import Foundation
import GatewayCore
import HTTPTypes

/// The console's words in English and Japanese (issue 49), chosen by `Accept-Language`.
struct ConsoleTexts: Sendable {
    let language: String
    private let table: [String: String]
    /// The zone times are shown in, as the operator named it (the `gw-console-tz` cookie; UTC
    /// without one).
    var timeZoneName = "UTC"

    /// English unless the first language the browser asks for is Japanese; times in the zone
    /// the operator chose.
    static func negotiate(_ headers: HTTPFields) -> ConsoleTexts {
        let first = headers[.acceptLanguage]?.split(separator: ",").first?.split(separator: ";").first
        let wanted = first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        var texts =
            wanted.hasPrefix("ja")
            ? ConsoleTexts(language: "ja", table: japanese) : ConsoleTexts(language: "en", table: [:])
        // Either name: a preference for reading times needs no `__Host-` guarantee.
        let zone = [true, false].lazy.compactMap { ConsoleCookie.timeZone(secure: $0).value(in: headers) }.first
        if let zone { texts.timeZoneName = zone }
        return texts
    }

    /// A time as the operator reads it: to the second in its time zone, with UTC on hover
    /// (`title`) and the exact instant in `datetime`.
    func time(_ date: Date) -> String {
        let exact = RFC3339.millisecondString(from: date)
        let utc = String(RFC3339.string(from: date).replacingOccurrences(of: "T", with: " ").dropLast()) + " UTC"
        guard let timeZone = operatorZone else { return "<time datetime=\"\(exact)\">\(utc)</time>" }
        let c = Self.calendar(timeZone).dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let local = String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
        let zone = timeZone.abbreviation(for: date) ?? timeZone.identifier
        return "<time datetime=\"\(exact)\" title=\"\(utc)\">\(local) \(LoginPage.escape(zone))</time>"
    }

    /// Hours and minutes of `date` in the operator's time zone (a chart's axis), `HH:mm`.
    func clock(_ date: Date) -> String {
        let parts = Self.calendar(operatorZone ?? .gmt).dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// The operator's zone; nil: UTC (none chosen, or a name this system does not know).
    private var operatorZone: TimeZone? {
        timeZoneName == "UTC" ? nil : TimeZone(identifier: timeZoneName)
    }

    private static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// The text of `key` with `%1`, `%2`, … replaced by `values`, in order.
    func format(_ key: Key, _ values: String...) -> String {
        var text = self[key]
        for (index, value) in values.enumerated().reversed() {
            text = text.replacingOccurrences(of: "%\(index + 1)", with: value)
        }
        return text
    }

    /// A refusal as a person reads it, in this language: the permission a role lacks, a tenant
    /// or record it cannot see, else the refusal's own detail (never a Swift value's dump).
    func refusal(_ error: AdminError) -> String {
        switch error {
        case .forbidden(let missing): format(.refusedPermission, missing.description)
        case .tenantNotFound(let id): format(.refusedNoTenant, id)
        case .auditRecordNotFound, .releaseNotFound, .notificationNotFound: self[.refusedNotFound]
        default:
            format(.refusedOther, AdminProblems.problem(for: error, wrapped: error).detail ?? error.localizedDescription)
        }
    }

    /// The text of `key` in this language (English when it has none).
    subscript(_ key: Key) -> String { table[key.rawValue] ?? key.english }

    enum Key: String {
        case console, overview, audit, signOut, signedInAs, tenants, tenant, displayName, status, revision
        case roles, noTenants, time, chain, actor, verb, resource, outcome, summary, filter, next, anyValue
        case operatorName, refused, refusedFormText, signInFailed, signInAgain, noRecords, skipToContent
        case history, reason, stable, platformLatest, candidate, state, share, target, steps, lists, segment
        case haltRule, newShare, version, actions, actionShare, actionPause, actionResume, actionPromote
        case actionRollback, consequenceShare, consequencePause, consequenceResume, consequencePromote
        case consequenceRollback, confirm, cancel, confirmTitle, done, notFound, changedBy
        case chartHalt, chartNoHalt, chartEmpty, chartSummary, health, rollouts, miniApp
        case notifications, notification, noNotifications, sender, queued, funnelSent, notDelivered, funnelPending
        case funnelFailed, funnelInvalid, funnelExpired, funnelSkipped, funnelSummary, locales, deliveries, device
        case user, attempts, sendTitle, sendUsers, sendEveryone, preview, locale, textFor, titleField, bodyField
        case sendToEveryone, sendToUsers, cutToFit, sendNow, notReadable, configuration, setting, value
        case secretsMasked, clients, kind, redirects, scopes, optionalScopes, confidential, publicClient, signingKeys, nextStep
        case nextStepAt, rotateHint, linkDomains, host, appIDs, androidApps, roleBindings, role, miniApps, sequence, address
        case requestID, recordBroken, recordHolds, change, noChange, before, after, verifyWhole, auditRecord
        case useInstead, actionWithdraw, consequenceWithdraw, timeZone, save, moreTenants, perMinute, errorShare
        case latencyP95, backlog, pushBacklog, byProvider, secretKept, saveConfiguration, tenantChangedBy
        case noDifference, editConfiguration, notSaved, grants, courier, noCourierMessages, channel, purpose, recipient
        case lastError, findUser, username, open, passkeys, noPasskeys, created, lastUsed, synced, removePasskey
        case refusedPermission, refusedNoTenant, refusedNotFound, refusedOther
        case callbackDenied, callbackError, callbackNotStarted, callbackNoCode, callbackCodeUsed

        var english: String {
            switch self {
            case .console: "SuperApp Gateway console"
            case .overview: "Overview"
            case .audit: "Audit"
            case .signOut: "Sign out"
            case .signedInAs: "Signed in as"
            case .tenants: "Tenants"
            case .tenant: "Tenant"
            case .displayName: "Name"
            case .status: "Status"
            case .revision: "Revision"
            case .roles: "Your roles"
            case .noTenants: "No tenant is visible with your roles."
            case .time: "Time"
            case .chain: "Chain"
            case .actor: "Operator"
            case .verb: "Verb"
            case .resource: "Resource"
            case .outcome: "Outcome"
            case .summary: "What changed"
            case .filter: "Filter"
            case .next: "Older records"
            case .anyValue: "any"
            case .operatorName: "Operator id"
            case .refused: "Refused"
            case .refusedFormText: "This form was not sent from your session; nothing was done."
            case .signInFailed: "Sign-in did not complete"
            case .signInAgain: "Sign in again"
            case .noRecords: "No record matches."
            case .skipToContent: "Skip to content"
            case .history: "History"
            case .reason: "Reason"
            case .stable: "Stable"
            case .platformLatest: "the platform's latest"
            case .candidate: "Candidate"
            case .state: "State"
            case .share: "Share now"
            case .target: "target"
            case .steps: "Steps"
            case .lists: "Allow / deny lists (users)"
            case .segment: "Segment"
            case .haltRule: "Automatic halt"
            case .newShare: "New share (%)"
            case .version: "Version"
            case .actions: "Actions"
            case .actionShare: "Change the share"
            case .actionPause: "Pause"
            case .actionResume: "Resume"
            case .actionPromote: "Promote"
            case .actionRollback: "Roll back"
            case .consequenceShare:
                "Offers %1 to %3 % of users (now %2 %); the others keep %4. Users already given %1 keep it while they stay in the share."
            case .consequencePause:
                "Freezes %1 at %2 % of users: they keep it, no one new gets it, and steps wait until resumed."
            case .consequenceResume: "Offers %1 again at %2 %, with the steps whose time has come."
            case .consequencePromote: "Makes %1 the stable version for every user; %2 is no longer offered."
            case .consequenceRollback: "Every user gets %1; the candidate %2 is dropped."
            case .confirm: "Confirm"
            case .cancel: "Cancel"
            case .confirmTitle: "%1: %2"
            case .done: "Done: %1."
            case .notFound: "Not found"
            case .chartHalt: "Halt above %1× stable's rate (dashed)."
            case .chartNoHalt: "No automatic halt rule."
            case .chartEmpty: "No attributable opens of %1 or stable in the last two hours."
            case .chartSummary: "In the last window, %1 failed on %2 of %3 opens, stable on %4 of %5."
            case .health: "Failure rates per 10 minutes"
            case .rollouts: "Release policies"
            case .miniApp: "Mini app"
            case .notifications: "Notifications"
            case .notification: "Notification"
            case .noNotifications: "No notification was sent in this tenant yet."
            case .sender: "Sender"
            case .queued: "Queued"
            case .funnelSent: "Accepted by the provider"
            case .notDelivered: "Not delivered"
            case .funnelPending: "Pending"
            case .funnelFailed: "Failed"
            case .funnelInvalid: "Invalid tokens (removed)"
            case .funnelExpired: "Expired"
            case .funnelSkipped: "Skipped (no consent)"
            case .funnelSummary:
                "Of %1 deliveries queued, %2 were accepted by the provider (%3); %4 failed or expired, %5 had invalid tokens (removed), %6 are pending, %7 were skipped for want of consent."
            case .locales: "Locales"
            case .deliveries: "First deliveries"
            case .device: "Device"
            case .user: "User"
            case .attempts: "Attempts"
            case .sendTitle: "Send a notification"
            case .sendUsers: "To these users (ids, one per line)"
            case .sendEveryone: "To everyone who consented to the mini app's notifications"
            case .preview: "Preview"
            case .locale: "Locale"
            case .textFor: "Text: %1"
            case .titleField: "Title"
            case .bodyField: "Body"
            case .sendToEveryone: "To every user who consented to notifications from %1, on each of their devices."
            case .sendToUsers: "To %1 named users, for %2, on each of their devices that consented."
            case .cutToFit: "The body is cut here to fit the provider's 4,096 bytes."
            case .sendNow: "Send"
            case .notReadable: "Your roles do not let you read this here."
            case .configuration: "Configuration"
            case .setting: "Setting"
            case .value: "Value"
            case .secretsMasked: "Secrets are write-only: they show as masked; a new value replaces one, an empty field keeps it."
            case .secretKept: "unchanged when empty"
            case .saveConfiguration: "Save configuration"
            case .tenantChangedBy: "Not saved: the tenant was changed by %1 at %2 UTC. This is its configuration now."
            case .noDifference: "Nothing differs from the configuration; nothing was saved."
            case .editConfiguration: "Change the configuration"
            case .notSaved: "Not saved: the fields marked below need another value."
            case .clients: "OAuth clients"
            case .kind: "Kind"
            case .redirects: "Redirect URIs"
            case .grants: "Grants"
            case .courier: "Courier: the latest e-mail and SMS"
            case .noCourierMessages: "The courier sent nothing in this tenant yet."
            case .channel: "Channel"
            case .purpose: "Purpose"
            case .recipient: "To"
            case .lastError: "Last error"
            case .refusedPermission: "Your roles do not allow this: it needs the %1 permission."
            case .refusedNoTenant: "There is no tenant %1, or none your roles let you see."
            case .refusedNotFound: "There is no such record, or none your roles let you see."
            case .refusedOther: "The gateway refused this: %1"
            case .callbackDenied: "The sign-in was cancelled or refused."
            case .callbackError: "The sign-in page could not sign you in."
            case .callbackNotStarted: "This sign-in was not started in this browser, or it took longer than 10 minutes."
            case .callbackNoCode: "The sign-in page's answer named no code."
            case .callbackCodeUsed: "The sign-in code was used already or expired."
            case .scopes: "Scopes"
            case .optionalScopes: "when asked: %1"
            case .confidential: "confidential"
            case .publicClient: "public"
            case .signingKeys: "Signing keys"
            case .nextStep: "Next step"
            case .nextStepAt: "%1 at %2"
            case .rotateHint: "signs now: rotate to replace it"
            case .linkDomains: "Link domains"
            case .host: "Host"
            case .appIDs: "App ids"
            case .androidApps: "Android apps"
            case .findUser: "Find a user"
            case .username: "Username"
            case .open: "Open"
            case .passkeys: "Passkeys"
            case .noPasskeys: "This user holds no passkey."
            case .created: "Made"
            case .lastUsed: "Last used"
            case .synced: "Synced"
            case .removePasskey: "Remove the passkey"
            case .roleBindings: "Role bindings"
            case .role: "Role"
            case .miniApps: "Mini apps"
            case .sequence: "Sequence"
            case .address: "Address"
            case .requestID: "Request id"
            case .recordBroken: "This record does not hold in its chain: %1. The trail was altered; see docs/operators.md."
            case .recordHolds: "This record holds in chain %1: its contents match its seal and it links to the records before and after it."
            case .change: "What changed"
            case .noChange: "No document changed (a refusal, an action or a sign-in)."
            case .before: "Before"
            case .after: "After"
            case .verifyWhole: "To verify all of chain %1 from its start: %2"
            case .auditRecord: "Audit record %1"
            case .useInstead: "Use instead (optional)"
            case .timeZone: "Show times in"
            case .save: "Save"
            case .moreTenants: "Next tenants"
            case .perMinute: "Requests/min (1 h)"
            case .errorShare: "5xx share"
            case .latencyP95: "p95"
            case .backlog: "%1 pending"
            case .pushBacklog: "Push backlog"
            case .byProvider: "By provider"
            case .actionWithdraw: "Withdraw a version"
            case .consequenceWithdraw:
                "Withdraws %1: no user is offered it any more, and its manifest and bundle are refused to everyone, naming %2 to use instead."
            case .changedBy: "Not done: the policy was changed by %1 at %2 UTC. This is its state now."
            }
        }
    }

    private static let japanese: [String: String] = [
        "console": "SuperApp Gateway コンソール", "overview": "概要", "audit": "監査ログ", "signOut": "サインアウト",
        "signedInAs": "サインイン中:", "tenants": "テナント", "tenant": "テナント", "displayName": "名前",
        "status": "状態", "revision": "リビジョン", "roles": "あなたのロール",
        "noTenants": "あなたのロールで表示できるテナントはありません。", "time": "日時", "chain": "チェーン",
        "actor": "オペレーター", "verb": "操作", "resource": "リソース", "outcome": "結果", "summary": "変更内容",
        "filter": "絞り込む", "next": "さらに古い記録", "anyValue": "すべて", "operatorName": "オペレーター ID",
        "refused": "拒否されました", "refusedFormText": "このフォームはあなたのセッションから送信されていません。何も実行していません。",
        "signInFailed": "サインインが完了しませんでした", "signInAgain": "もう一度サインイン", "noRecords": "該当する記録はありません。",
        "skipToContent": "本文へ移動", "history": "履歴", "reason": "理由", "stable": "安定版",
        "platformLatest": "プラットフォームの最新版", "candidate": "候補版", "state": "状態", "share": "現在の配信率",
        "target": "目標", "steps": "段階", "lists": "許可 / 拒否リスト (ユーザー)", "segment": "セグメント",
        "haltRule": "自動停止", "newShare": "新しい配信率 (%)", "version": "バージョン", "actions": "操作",
        "actionShare": "配信率を変更", "actionPause": "一時停止", "actionResume": "再開", "actionPromote": "昇格",
        "actionRollback": "ロールバック",
        "consequenceShare": "%1 をユーザーの %3 % に配信します (現在 %2 %)。他のユーザーは %4 のままです。",
        "consequencePause": "%1 を %2 % で止めます。対象ユーザーはそのまま、新たに配信されるユーザーはいません。",
        "consequenceResume": "%1 の配信を %2 % で再開します。", "consequencePromote": "%1 を全ユーザーの安定版にします。%2 は配信されなくなります。",
        "consequenceRollback": "全ユーザーに %1 を配信し、候補版 %2 を取り下げます。", "confirm": "確定", "cancel": "キャンセル",
        "confirmTitle": "%1: %2", "done": "完了: %1。", "notFound": "見つかりません",
        "chartHalt": "安定版の %1 倍を超えると自動停止 (破線)。", "chartNoHalt": "自動停止ルールはありません。",
        "chartEmpty": "直近 2 時間、%1 と安定版の集計対象の起動はありません。",
        "chartSummary": "直近の区間で、%1 は %3 回の起動のうち %2 が失敗、安定版は %5 回のうち %4 が失敗しました。",
        "health": "10 分ごとの失敗率", "rollouts": "リリースポリシー", "miniApp": "ミニアプリ",
        "notifications": "通知", "notification": "通知", "noNotifications": "このテナントではまだ通知が送信されていません。",
        "sender": "送信者", "queued": "キュー投入", "funnelSent": "プロバイダーが受理", "notDelivered": "未配信",
        "funnelPending": "保留中", "funnelFailed": "失敗", "funnelInvalid": "無効なトークン (削除済み)", "funnelExpired": "期限切れ",
        "funnelSkipped": "スキップ (同意なし)",
        "funnelSummary": "キュー投入 %1 件のうち %2 件をプロバイダーが受理 (%3)、%4 件が失敗または期限切れ、%5 件が無効なトークン (削除済み)、%6 件が保留中、%7 件が同意なしでスキップされました。",
        "locales": "ロケール", "deliveries": "最初の配信", "device": "デバイス", "user": "ユーザー", "attempts": "試行回数",
        "sendTitle": "通知を送信", "sendUsers": "送信先ユーザー (ID を 1 行に 1 つ)",
        "sendEveryone": "ミニアプリの通知に同意したすべてのユーザー", "preview": "プレビュー", "locale": "ロケール",
        "textFor": "テキスト: %1", "titleField": "タイトル", "bodyField": "本文",
        "sendToEveryone": "%1 の通知に同意したすべてのユーザーの各デバイスへ送信します。",
        "sendToUsers": "指定した %1 人のユーザーの、%2 の通知に同意した各デバイスへ送信します。",
        "cutToFit": "プロバイダーの上限 4,096 バイトに収めるため、本文はここで切り詰められます。", "sendNow": "送信",
        "notReadable": "あなたのロールではここを表示できません。", "configuration": "設定", "setting": "項目", "value": "値",
        "secretsMasked": "シークレットは書き込み専用です。マスク表示され、新しい値で置き換わり、空欄のままなら変わりません。",
        "secretKept": "空欄なら変更しません", "saveConfiguration": "設定を保存",
        "tenantChangedBy": "保存していません: このテナントは %2 UTC に %1 が変更しました。現在の設定を表示しています。",
        "noDifference": "設定と異なる値はありません。何も保存していません。", "editConfiguration": "設定を変更",
        "notSaved": "保存していません: 下に示した項目の値を直してください。",
        "refusedPermission": "あなたのロールではこの操作はできません（必要な権限: %1）。",
        "refusedNoTenant": "テナント %1 は存在しないか、あなたのロールでは表示できません。",
        "refusedNotFound": "該当する記録は存在しないか、あなたのロールでは表示できません。",
        "refusedOther": "ゲートウェイが拒否しました: %1",
        "callbackDenied": "サインインは取り消されたか、拒否されました。",
        "callbackError": "サインインページでサインインできませんでした。",
        "callbackNotStarted": "このサインインはこのブラウザーで開始されていないか、10 分以上かかりました。",
        "callbackNoCode": "サインインページの応答にコードがありません。",
        "callbackCodeUsed": "サインインのコードは使用済みか、期限切れです。",
        "clients": "OAuth クライアント", "kind": "種別", "redirects": "リダイレクト URI", "grants": "グラント", "scopes": "スコープ",
        "optionalScopes": "要求時: %1",
        "courier": "配信: 最新のメールと SMS", "noCourierMessages": "このテナントではまだ何も送信されていません。",
        "channel": "チャネル", "purpose": "用途", "recipient": "宛先", "lastError": "直近のエラー",
        "confidential": "コンフィデンシャル", "publicClient": "パブリック", "signingKeys": "署名鍵", "nextStep": "次の段階",
        "nextStepAt": "%2 に %1", "rotateHint": "署名中: ローテーションで置き換え", "linkDomains": "リンクドメイン",
        "host": "ホスト", "appIDs": "アプリ ID", "androidApps": "Android アプリ", "findUser": "ユーザーを探す", "username": "ユーザー名", "open": "開く",
        "passkeys": "パスキー", "noPasskeys": "このユーザーはパスキーを持っていません。", "created": "作成",
        "lastUsed": "最終使用", "synced": "同期", "removePasskey": "パスキーを削除", "roleBindings": "ロールの割り当て", "role": "ロール", "miniApps": "ミニアプリ",
        "sequence": "シーケンス", "address": "アドレス", "requestID": "リクエスト ID",
        "recordBroken": "この記録はチェーン内で整合していません: %1。監査ログが改ざんされています。docs/operators.md を参照してください。",
        "recordHolds": "この記録はチェーン %1 で整合しています: 内容が封印と一致し、前後の記録とつながっています。",
        "change": "変更内容", "noChange": "変更された文書はありません (拒否、操作、またはサインイン)。", "before": "変更前",
        "after": "変更後", "verifyWhole": "チェーン %1 全体を先頭から検証するには: %2",
        "auditRecord": "監査記録 %1", "useInstead": "代わりに使うバージョン (任意)", "timeZone": "時刻の表示", "save": "保存", "moreTenants": "次のテナント", "perMinute": "リクエスト/分 (1 時間)",
        "errorShare": "5xx の割合", "latencyP95": "p95", "backlog": "保留中 %1 件", "pushBacklog": "プッシュの未配信", "byProvider": "プロバイダー別", "actionWithdraw": "バージョンを取り下げ",
        "consequenceWithdraw": "%1 を取り下げます: どのユーザーにも配信されなくなり、マニフェストとバンドルは %2 を代わりに示して拒否されます。",
        "changedBy": "実行していません: このポリシーは %2 UTC に %1 が変更しました。現在の状態を表示しています。",
    ]
}
