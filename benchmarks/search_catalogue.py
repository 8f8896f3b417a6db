"""A generated catalogue of realistic tools for the tool-search evaluation (``bench_search.py``).

Twenty-four domains, each a server of its own (code hosting, DNS, mail, Kubernetes, billing …),
each with its resources crossed with twenty everyday actions written as API authors write them
(``create``, ``get``, ``list``, ``search``, ``update``, ``delete``, ``archive`` …): near-duplicate
actions on one resource, and one action on many look-alike resources.  Each domain also has its
own operations (``purge_cache``, ``rotate_key`` …).  Look-alike filler tools (``repo_get_0042``,
as ``many_tools_server.py`` offers) bring the catalogue past 5,000 tools.

Names and descriptions use the API's words; the requests in ``search_requests.py`` use a
person's.  Both were written before the ranker was tuned and are kept fixed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["CatalogueTool", "catalogue"]


@dataclass(frozen=True)
class CatalogueTool:
    server: str
    tool: str
    description: str
    parameters: dict[str, str] = field(default_factory=dict)

    @property
    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                name: {"type": "string", "description": text}
                for name, text in self.parameters.items()
            },
        }


# server, what it is, its resources (singular; plural made by adding "s" unless given as a|b).
DOMAINS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "github",
        "GitHub",
        (
            "repository|repositories",
            "issue",
            "pull_request",
            "branch|branches",
            "release",
            "comment",
            "label",
            "milestone",
            "webhook",
            "gist",
        ),
    ),
    (
        "dns",
        "the DNS provider",
        ("zone", "record", "nameserver", "dnssec_key", "redirect", "health_check"),
    ),
    (
        "mail",
        "the mail service",
        (
            "message",
            "draft",
            "mailbox|mailboxes",
            "folder",
            "filter",
            "signature",
            "contact",
            "attachment",
        ),
    ),
    (
        "calendar",
        "the calendar",
        ("event", "calendar", "attendee", "reminder", "room", "availability|availabilities"),
    ),
    (
        "storage",
        "object storage",
        ("bucket", "object", "lifecycle_rule", "access_policy|access_policies", "presigned_url"),
    ),
    (
        "k8s",
        "the Kubernetes cluster",
        (
            "pod",
            "deployment",
            "service",
            "namespace",
            "config_map",
            "secret",
            "node",
            "ingress|ingresses",
            "cron_job",
        ),
    ),
    (
        "vm",
        "the cloud compute service",
        ("instance", "snapshot", "volume", "image", "security_group", "ssh_key", "load_balancer"),
    ),
    (
        "db",
        "the managed database service",
        ("database", "table", "backup", "replica", "user", "query|queries", "index|indexes"),
    ),
    (
        "billing",
        "the billing platform",
        (
            "invoice",
            "payment",
            "subscription",
            "customer",
            "refund",
            "coupon",
            "price",
            "credit_note",
        ),
    ),
    (
        "iam",
        "the identity provider",
        (
            "user",
            "group",
            "role",
            "api_key",
            "session",
            "permission",
            "service_account",
            "access_token",
        ),
    ),
    (
        "security",
        "the security scanner",
        (
            "finding",
            "vulnerability|vulnerabilities",
            "scan",
            "policy|policies",
            "exception",
            "asset",
        ),
    ),
    (
        "monitor",
        "the monitoring service",
        (
            "alert",
            "dashboard",
            "metric",
            "monitor",
            "incident",
            "silence",
            "on_call_schedule",
            "slo",
        ),
    ),
    (
        "ci",
        "the CI/CD service",
        ("pipeline", "job", "build", "artifact", "runner", "variable", "deployment", "environment"),
    ),
    ("wiki", "the team wiki", ("page", "space", "comment", "template", "attachment", "blog_post")),
    (
        "chat",
        "the team chat",
        ("message", "channel", "thread", "reaction", "user_group", "reminder", "bookmark"),
    ),
    (
        "crm",
        "the CRM",
        ("contact", "company|companies", "deal", "lead", "note", "task", "pipeline_stage"),
    ),
    (
        "helpdesk",
        "the helpdesk",
        (
            "ticket",
            "agent",
            "macro",
            "satisfaction_rating",
            "article",
            "queue",
            "sla_policy|sla_policies",
        ),
    ),
    (
        "files",
        "the shared drive",
        ("file", "folder", "permission", "revision", "shortcut", "shared_drive"),
    ),
    (
        "shop",
        "the online shop",
        (
            "product",
            "order",
            "cart",
            "discount",
            "shipment",
            "review",
            "collection",
            "inventory_item",
        ),
    ),
    (
        "hr",
        "the HR system",
        (
            "employee",
            "time_off_request",
            "department",
            "job_posting",
            "candidate",
            "payslip",
            "performance_review",
        ),
    ),
    (
        "flags",
        "the feature-flag service",
        ("flag", "segment", "experiment", "environment", "rollout"),
    ),
    (
        "vault",
        "the secrets vault",
        ("secret", "certificate", "encryption_key", "policy|policies", "lease"),
    ),
    (
        "cdn",
        "the CDN",
        ("distribution", "cache_rule", "origin", "edge_function", "waf_rule", "tls_certificate"),
    ),
    (
        "analytics",
        "the product analytics service",
        ("report", "event", "funnel", "cohort", "chart", "annotation"),
    ),
)

# action, description template ({res}, {ress}: singular and plural nouns, {where}: the domain),
# parameters.
ACTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("create", "Create a new {res} in {where}. Returns the created {res}.", ("name", "body")),
    ("get", "Get one {res} by its id, with all of its fields.", ("{id}",)),
    ("list", "List the {ress} in {where}, newest first, with paging.", ("page", "per_page")),
    ("search", "Search {ress} by a text query and filters.", ("query", "filters")),
    ("update", "Update fields of an existing {res}.", ("{id}", "fields")),
    ("delete", "Delete a {res} permanently. This cannot be undone.", ("{id}",)),
    ("archive", "Archive a {res}: it is hidden from lists but kept.", ("{id}",)),
    ("restore", "Restore an archived or deleted {res}.", ("{id}",)),
    ("export", "Export {ress} to a CSV or JSON file.", ("format", "filters")),
    ("share", "Share a {res} with a user or a group, granting them access.", ("{id}", "grantee")),
    ("assign", "Assign a {res} to a person as its owner.", ("{id}", "assignee")),
    ("approve", "Approve a pending {res}.", ("{id}", "comment")),
    ("cancel", "Cancel a {res} that is pending or in progress.", ("{id}", "reason")),
    ("count", "Count the {ress} that match a filter.", ("filters",)),
    ("clone", "Duplicate a {res} with all of its settings.", ("{id}", "name")),
    ("import", "Import {ress} from a CSV or JSON file.", ("file", "format")),
    ("lock", "Lock a {res} so that nobody can change it.", ("{id}",)),
    ("unlock", "Unlock a locked {res}.", ("{id}",)),
    ("tag", "Add tags to a {res}.", ("{id}", "tags")),
    ("subscribe", "Subscribe to notifications about changes to a {res}.", ("{id}",)),
)

# The domains' own operations: (server, tool, description, parameters).
OPERATIONS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    (
        "github",
        "merge_pull_request",
        "Merge a pull request into its base branch.",
        ("number", "method"),
    ),
    ("github", "fork_repository", "Fork a repository into your account.", ("owner", "repo")),
    ("github", "star_repository", "Star a repository.", ("owner", "repo")),
    (
        "github",
        "request_review",
        "Request a review of a pull request from users or teams.",
        ("number", "reviewers"),
    ),
    (
        "github",
        "close_issue",
        "Close an issue as completed or not planned.",
        ("number", "state_reason"),
    ),
    ("github", "reopen_issue", "Reopen a closed issue.", ("number",)),
    (
        "dns",
        "lookup_record",
        "Resolve a host name and return its DNS records.",
        ("hostname", "type"),
    ),
    ("dns", "transfer_domain", "Transfer a domain to this registrar.", ("domain", "auth_code")),
    ("dns", "renew_domain", "Renew a domain registration for more years.", ("domain", "years")),
    ("mail", "send_message", "Send an email message to recipients.", ("to", "subject", "body")),
    ("mail", "reply_to_message", "Reply to an email message.", ("message_id", "body")),
    (
        "mail",
        "forward_message",
        "Forward an email message to other recipients.",
        ("message_id", "to"),
    ),
    ("mail", "mark_as_read", "Mark messages as read.", ("message_ids",)),
    ("mail", "move_message", "Move a message to another folder.", ("message_id", "folder")),
    (
        "calendar",
        "find_free_time",
        "Find time slots when all attendees are free.",
        ("attendees", "duration"),
    ),
    (
        "calendar",
        "respond_to_event",
        "Accept, decline or tentatively accept an event invitation.",
        ("event_id", "response"),
    ),
    ("calendar", "book_room", "Book a meeting room for a time slot.", ("room_id", "start", "end")),
    (
        "storage",
        "upload_object",
        "Upload a file as an object into a bucket.",
        ("bucket", "key", "path"),
    ),
    (
        "storage",
        "download_object",
        "Download an object from a bucket to a local file.",
        ("bucket", "key"),
    ),
    (
        "storage",
        "copy_object",
        "Copy an object to another bucket or key.",
        ("source", "destination"),
    ),
    ("k8s", "get_logs", "Get the logs of a pod's container.", ("pod", "container", "tail_lines")),
    (
        "k8s",
        "scale_deployment",
        "Set the number of replicas of a deployment.",
        ("deployment", "replicas"),
    ),
    (
        "k8s",
        "rollout_restart",
        "Restart a deployment by rolling out its pods again.",
        ("deployment",),
    ),
    (
        "k8s",
        "rollback_deployment",
        "Roll a deployment back to its previous revision.",
        ("deployment", "revision"),
    ),
    ("k8s", "exec_in_pod", "Run a command inside a pod's container.", ("pod", "command")),
    ("k8s", "cordon_node", "Mark a node unschedulable so no new pods start on it.", ("node",)),
    ("k8s", "drain_node", "Evict all pods from a node before maintenance.", ("node",)),
    ("vm", "start_instance", "Start a stopped compute instance.", ("instance_id",)),
    ("vm", "stop_instance", "Stop a running compute instance.", ("instance_id",)),
    ("vm", "reboot_instance", "Reboot a compute instance.", ("instance_id",)),
    (
        "vm",
        "resize_instance",
        "Change the machine type of an instance.",
        ("instance_id", "machine_type"),
    ),
    ("vm", "attach_volume", "Attach a disk volume to an instance.", ("volume_id", "instance_id")),
    (
        "db",
        "run_query",
        "Run a SQL query against a database and return the rows.",
        ("database", "sql"),
    ),
    ("db", "explain_query", "Show the execution plan of a SQL query.", ("database", "sql")),
    ("db", "failover_replica", "Promote a read replica to primary.", ("replica_id",)),
    ("db", "vacuum_table", "Reclaim storage and update statistics of a table.", ("table",)),
    ("billing", "refund_payment", "Refund a payment in full or in part.", ("payment_id", "amount")),
    (
        "billing",
        "charge_customer",
        "Charge a customer's saved payment method.",
        ("customer_id", "amount"),
    ),
    ("billing", "send_invoice", "Email an invoice to the customer.", ("invoice_id",)),
    ("billing", "apply_coupon", "Apply a coupon to a subscription.", ("subscription_id", "coupon")),
    ("billing", "pause_subscription", "Pause a subscription's billing.", ("subscription_id",)),
    ("iam", "reset_password", "Reset a user's password and send them a reset link.", ("user_id",)),
    ("iam", "revoke_session", "Revoke a user's active session, signing them out.", ("session_id",)),
    ("iam", "revoke_api_key", "Revoke an API key so it can no longer be used.", ("key_id",)),
    (
        "iam",
        "rotate_api_key",
        "Rotate an API key: issue a new secret and expire the old one.",
        ("key_id",),
    ),
    ("iam", "add_user_to_group", "Add a user to a group.", ("user_id", "group_id")),
    ("iam", "remove_user_from_group", "Remove a user from a group.", ("user_id", "group_id")),
    ("iam", "enable_mfa", "Require multi-factor authentication for a user.", ("user_id",)),
    ("iam", "suspend_user", "Suspend a user's account so they cannot sign in.", ("user_id",)),
    ("security", "start_scan", "Start a vulnerability scan of an asset.", ("asset_id",)),
    (
        "security",
        "dismiss_finding",
        "Dismiss a security finding as a false positive or accepted risk.",
        ("finding_id", "reason"),
    ),
    ("security", "resolve_finding", "Mark a security finding as fixed.", ("finding_id",)),
    ("monitor", "acknowledge_alert", "Acknowledge a firing alert.", ("alert_id",)),
    (
        "monitor",
        "silence_alert",
        "Silence an alert for a period of time.",
        ("alert_id", "duration"),
    ),
    (
        "monitor",
        "query_metric",
        "Query a metric's time series over a time range.",
        ("metric", "start", "end"),
    ),
    (
        "monitor",
        "page_on_call",
        "Page the on-call engineer about an incident.",
        ("schedule", "message"),
    ),
    ("monitor", "resolve_incident", "Resolve an open incident.", ("incident_id",)),
    (
        "ci",
        "trigger_pipeline",
        "Trigger a new run of a pipeline on a branch.",
        ("pipeline", "branch"),
    ),
    ("ci", "retry_job", "Retry a failed job.", ("job_id",)),
    ("ci", "get_job_log", "Get the log output of a job.", ("job_id",)),
    ("ci", "download_artifact", "Download a build artifact.", ("artifact_id",)),
    (
        "ci",
        "promote_deployment",
        "Promote a deployment to the next environment.",
        ("deployment_id", "environment"),
    ),
    ("wiki", "publish_page", "Publish a draft page so readers can see it.", ("page_id",)),
    ("wiki", "move_page", "Move a page under another parent page.", ("page_id", "parent_id")),
    ("wiki", "watch_page", "Watch a page to be notified of changes.", ("page_id",)),
    ("chat", "post_message", "Post a message to a channel.", ("channel", "text")),
    ("chat", "send_direct_message", "Send a direct message to a user.", ("user", "text")),
    ("chat", "pin_message", "Pin a message in a channel.", ("channel", "message_ts")),
    ("chat", "invite_to_channel", "Invite users to a channel.", ("channel", "users")),
    ("chat", "leave_channel", "Leave a channel.", ("channel",)),
    ("chat", "set_status", "Set your status text and emoji.", ("text", "emoji")),
    ("crm", "log_call", "Log a phone call with a contact.", ("contact_id", "notes")),
    ("crm", "convert_lead", "Convert a lead into a contact, company and deal.", ("lead_id",)),
    ("crm", "move_deal_stage", "Move a deal to another pipeline stage.", ("deal_id", "stage")),
    (
        "crm",
        "merge_contacts",
        "Merge two duplicate contacts into one.",
        ("primary_id", "duplicate_id"),
    ),
    ("helpdesk", "reply_to_ticket", "Reply to the requester of a ticket.", ("ticket_id", "body")),
    (
        "helpdesk",
        "escalate_ticket",
        "Escalate a ticket to a higher support tier.",
        ("ticket_id", "tier"),
    ),
    ("helpdesk", "merge_tickets", "Merge duplicate tickets into one.", ("ticket_ids",)),
    ("helpdesk", "close_ticket", "Close a solved ticket.", ("ticket_id",)),
    ("files", "upload_file", "Upload a local file to the shared drive.", ("path", "folder_id")),
    ("files", "download_file", "Download a file from the shared drive.", ("file_id",)),
    ("files", "move_file", "Move a file to another folder.", ("file_id", "folder_id")),
    ("files", "rename_file", "Rename a file.", ("file_id", "name")),
    ("files", "empty_trash", "Permanently delete every file in the trash.", ()),
    ("shop", "fulfill_order", "Mark an order as fulfilled and notify the customer.", ("order_id",)),
    (
        "shop",
        "adjust_inventory",
        "Adjust the stock level of an inventory item.",
        ("item_id", "delta"),
    ),
    (
        "shop",
        "print_shipping_label",
        "Buy and print a shipping label for a shipment.",
        ("shipment_id",),
    ),
    ("shop", "publish_product", "Publish a product to the storefront.", ("product_id",)),
    ("hr", "approve_time_off", "Approve an employee's time-off request.", ("request_id",)),
    ("hr", "onboard_employee", "Start onboarding for a new hire.", ("employee_id", "start_date")),
    (
        "hr",
        "offboard_employee",
        "Run offboarding for a departing employee.",
        ("employee_id", "last_day"),
    ),
    (
        "hr",
        "schedule_interview",
        "Schedule an interview with a candidate.",
        ("candidate_id", "time"),
    ),
    (
        "flags",
        "toggle_flag",
        "Turn a feature flag on or off in an environment.",
        ("flag_key", "environment", "on"),
    ),
    (
        "flags",
        "set_rollout_percentage",
        "Set the percentage of users who get a flag.",
        ("flag_key", "percentage"),
    ),
    (
        "flags",
        "conclude_experiment",
        "Stop an experiment and pick the winning variant.",
        ("experiment_id", "variant"),
    ),
    ("vault", "read_secret", "Read the value of a secret.", ("path",)),
    ("vault", "write_secret", "Write a new version of a secret.", ("path", "value")),
    ("vault", "rotate_encryption_key", "Rotate an encryption key to a new version.", ("key_name",)),
    (
        "vault",
        "issue_certificate",
        "Issue a TLS certificate from the internal CA.",
        ("common_name", "ttl"),
    ),
    ("vault", "revoke_lease", "Revoke a lease and the credentials it holds.", ("lease_id",)),
    ("cdn", "purge_cache", "Purge cached content at the edge by path or tag.", ("paths", "tags")),
    (
        "cdn",
        "renew_tls_certificate",
        "Renew the TLS certificate of a distribution.",
        ("distribution_id",),
    ),
    ("cdn", "block_ip", "Block an IP address or range at the edge.", ("ip",)),
    (
        "cdn",
        "get_traffic_stats",
        "Get bandwidth and request statistics of a distribution.",
        ("distribution_id", "period"),
    ),
    ("analytics", "run_report", "Run a report and return its rows.", ("report_id", "date_range")),
    ("analytics", "track_event", "Record a custom analytics event.", ("name", "properties")),
    ("analytics", "get_retention", "Get the retention curve of a cohort.", ("cohort_id",)),
    (
        "translate",
        "translate_text",
        "Translate text into another language.",
        ("text", "target_language"),
    ),
    ("translate", "detect_language", "Detect the language of a text.", ("text",)),
    ("weather", "get_forecast", "Get the weather forecast for a place.", ("location", "days")),
    (
        "weather",
        "get_current_weather",
        "Get the current weather conditions for a place.",
        ("location",),
    ),
)

FILLER_FAMILIES = ("repo", "issue", "pull.request", "ci-job", "admin", "debug", "docs", "search")
FILLER_VERBS = ("get", "list", "create", "update", "delete", "archive")
FILLER_COUNT = 1600


def _nouns(resource: str) -> tuple[str, str, str]:
    """(name part, singular noun, plural noun) of a ``singular[|plural]`` resource."""
    single, _, plural = resource.partition("|")
    plural = plural or single + "s"
    return single, single.replace("_", " "), plural.replace("_", " ")


def _parameters(names: tuple[str, ...], resource: str) -> dict[str, str]:
    params: dict[str, str] = {}
    for name in names:
        real = name.replace("{id}", f"{resource}_id")
        params[real] = real.replace("_", " ").capitalize() + "."
    return params


def catalogue() -> list[CatalogueTool]:
    """Every tool of the catalogue, in a fixed order (5,000 and more)."""
    tools: list[CatalogueTool] = []
    for server, where, resources in DOMAINS:
        for resource in resources:
            part, res, ress = _nouns(resource)
            for action, template, params in ACTIONS:
                tools.append(
                    CatalogueTool(
                        server,
                        f"{action}_{part}"
                        if action != "list"
                        else f"list_{ress.replace(' ', '_')}",
                        template.format(res=res, ress=ress, where=where),
                        _parameters(params, part),
                    )
                )
    for server, tool, description, params in OPERATIONS:
        tools.append(CatalogueTool(server, tool, description, _parameters(params, "")))
    for i in range(FILLER_COUNT):
        family = FILLER_FAMILIES[i % len(FILLER_FAMILIES)]
        verb = FILLER_VERBS[(i // len(FILLER_FAMILIES)) % len(FILLER_VERBS)]
        tools.append(
            CatalogueTool(
                "many",
                f"{family}_{verb}_{i:04d}",
                f"{verb.capitalize()} a {family} record (#{i}). Returns JSON with the record's "
                "fields; use `fields` to choose which, and `limit` to bound list results.",
                {"id": f"The {family} identifier.", "limit": "At most this many."},
            )
        )
    return tools
