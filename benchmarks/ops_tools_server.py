"""An MCP server (low-level ``mcp`` SDK, stdio) of 60 everyday operations tools, for the tool
search benchmark (``benchmarks/bench_tool_search.py``).

Unlike ``many_tools_server.py``'s families of look-alike records, these read like the tools of
real servers (DNS, mail, calendars, storage, clusters, billing, tickets …), several to a
domain, so that a search has near misses to tell apart: "delete a DNS record" must find
``dns_delete_record``, not ``dns_create_record`` or ``storage_delete_object``.
"""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS: dict[str, str] = {
    "dns_create_record": "Create a DNS record (A, AAAA, CNAME, MX, TXT) in a hosted zone.",
    "dns_delete_record": "Delete a DNS record from a hosted zone by name and type.",
    "dns_list_records": "List the DNS records of a hosted zone.",
    "dns_list_zones": "List the hosted DNS zones of the account.",
    "mail_send": "Send an email message to one or more recipients, with optional attachments.",
    "mail_search": "Search the mailbox for messages matching sender, subject or text.",
    "mail_read": "Read one email message with its headers and body.",
    "mail_archive": "Archive email messages so they leave the inbox.",
    "calendar_create_event": "Create a calendar event or meeting with attendees and a time.",
    "calendar_list_events": "List upcoming calendar events in a date range.",
    "calendar_cancel_event": "Cancel a calendar event and notify its attendees.",
    "calendar_find_free_time": "Find free time slots shared by several people's calendars.",
    "storage_upload_object": "Upload a file as an object to a storage bucket.",
    "storage_download_object": "Download an object from a storage bucket.",
    "storage_delete_object": "Delete an object from a storage bucket.",
    "storage_list_buckets": "List the storage buckets of the project.",
    "storage_presign_url": "Create a temporary signed URL to share an object.",
    "k8s_list_pods": "List the pods of a Kubernetes namespace with their status.",
    "k8s_get_logs": "Fetch the logs of a Kubernetes pod's container.",
    "k8s_scale_deployment": "Scale a Kubernetes deployment to a number of replicas.",
    "k8s_rollout_restart": "Restart a Kubernetes deployment with a rolling update.",
    "k8s_apply_manifest": "Apply a Kubernetes manifest (YAML) to the cluster.",
    "vm_start": "Start a stopped virtual machine instance.",
    "vm_stop": "Stop a running virtual machine instance.",
    "vm_snapshot": "Take a disk snapshot of a virtual machine for backup.",
    "db_run_query": "Run a read-only SQL query on the database and return the rows.",
    "db_backup": "Start a backup of the database to storage.",
    "db_restore": "Restore the database from a backup.",
    "db_list_tables": "List the tables of the database schema.",
    "billing_get_invoice": "Get an invoice with its line items and totals.",
    "billing_refund_payment": "Refund a customer's payment, fully or partly.",
    "billing_list_subscriptions": "List a customer's subscriptions and their plans.",
    "billing_cancel_subscription": "Cancel a customer's subscription at the end of the period.",
    "user_create": "Create a user account with an email address and a role.",
    "user_disable": "Disable a user account so it can no longer sign in.",
    "user_reset_password": "Send a password reset link to a user.",
    "user_list_groups": "List the groups a user belongs to.",
    "ticket_create": "Open a support ticket with a title, description and priority.",
    "ticket_comment": "Add a comment to a support ticket.",
    "ticket_close": "Close a resolved support ticket.",
    "ticket_search": "Search support tickets by text, status or assignee.",
    "chat_post_message": "Post a message to a team chat channel.",
    "chat_list_channels": "List the team chat channels.",
    "chat_upload_file": "Share a file in a team chat channel.",
    "monitor_list_alerts": "List the firing monitoring alerts.",
    "monitor_silence_alert": "Silence a monitoring alert for a while (mute notifications).",
    "monitor_query_metrics": "Query time series metrics such as CPU or latency.",
    "cdn_purge_cache": "Purge cached content from the CDN for a path or the whole site.",
    "tls_renew_certificate": "Renew the TLS certificate of a domain.",
    "secrets_get": "Read a secret value from the secrets vault.",
    "secrets_rotate": "Rotate a secret in the vault and update its consumers.",
    "git_create_branch": "Create a git branch in a repository from a commit.",
    "git_merge_pull_request": "Merge an approved pull request into its base branch.",
    "ci_trigger_pipeline": "Trigger a CI pipeline run for a branch.",
    "ci_get_job_log": "Get the log of a failed CI job.",
    "docs_search": "Search the internal documentation wiki.",
    "translate_text": "Translate text into another language.",
    "weather_forecast": "Get the weather forecast for a city.",
    "maps_directions": "Get driving or walking directions between two places.",
    "pdf_extract_text": "Extract the text of a PDF document.",
}

SCHEMA = {
    "type": "object",
    "properties": {
        "target": {"type": "string", "description": "What to act on (name or ID)."},
        "options": {"type": "object", "description": "Optional settings of the operation."},
    },
    "required": ["target"],
}


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(name=name, description=text, input_schema=SCHEMA)
            for name, text in TOOLS.items()
        ]
    )


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])


async def main() -> None:
    server = Server("ops", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
