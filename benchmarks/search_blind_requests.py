"""A second, blind evaluation set for tool search (``bench_search.py``): the requests.

219 requests ``(what a person asks, server, tool)`` over ``search_blind_catalogue.py``, written
with it by an author who never saw the ranker (see that module).  Half of the set was looked at
once: the even-numbered requests' misses were read on 2026-12-06 while the ranker's word tables
were extended (contractions, ``#1050`` as a number, phrasal verbs in tool names, a few everyday
verbs); the odd-numbered requests were not tuned for (their misses were shown once, in one
listing of the whole set's misses before it was split in two, and not one of their outcomes
changed: 87 of 109 in the top 5 before and after), and their figure is the one to believe.
Kept fixed.
"""

from __future__ import annotations

__all__ = ["REQUESTS"]

REQUESTS: list[tuple[str, str, str]] = [
    # issue tracker
    (
        "File a bug in the PAY project on Jira: the checkout button does nothing in Safari",
        "jira",
        "createIssue",
    ),
    ("Change the status of PAY-123 from To Do to In Progress", "jira", "transitionIssue"),
    ("Kick off the next sprint on the mobile team's board", "jira", "startSprint"),
    ("Log 3 hours of work on PAY-88 for yesterday's debugging session", "jira", "createWorklog"),
    (
        "Who changed the priority on the Jira ticket PAY-12, and when? Show me its change log",
        "jira",
        "getIssueHistory",
    ),
    ("Mark version 2.4 of the Android app as shipped in Jira", "jira", "releaseVersion"),
    ("Show me all the epics in the Platform project", "jira", "listEpics"),
    (
        "Pull up the Payments board's backlog, the stuff that isn't in any sprint yet",
        "jira",
        "getBoardBacklog",
    ),
    ("Hand PAY-301 over to Dana so she owns it", "jira", "assignIssue"),
    ("Leave a comment on PAY-77 asking the reporter for repro steps", "jira", "createIssueComment"),
    (
        "Get rid of the test-sandbox Jira project entirely, we don't need any of its history",
        "jira",
        "deleteProject",
    ),
    # source hosting
    (
        "Open a pull request from feature/login into main in the web-app repo",
        "github",
        "create_pull_request",
    ),
    ("Merge PR #482 on GitHub", "github", "merge_pull_request"),
    ("Fork the kubernetes/ingress-nginx repo into my account", "github", "fork_repository"),
    ("Find every place in our GitHub code where we call parseConfig", "github", "search_code"),
    ("Re-run the failed GitHub Actions run 9911", "github", "rerun_workflow_run"),
    ("Put the needs-triage label on issue #77 in the api repo", "github", "label_issue"),
    ("Ask Priya and Omar to look over pull request #51", "github", "request_pull_request_review"),
    (
        "Make the old-website repo read-only; we're not maintaining it but want to keep it around",
        "github",
        "archive_repository",
    ),
    ("Cut a release called v3.0.0 with release notes for the api repo", "github", "create_release"),
    (
        "Report an issue on the acme/cli GitHub repo: the --verbose flag is ignored",
        "github",
        "create_issue",
    ),
    ("Comment on GitHub issue #77 that it's fixed in v2.1", "github", "create_issue_comment"),
    # chat
    ("Post 'deploy done' in #releases on Slack", "slack", "slack_post_message"),
    ("DM Priya on Slack that the meeting moved to 3pm", "slack", "slack_send_direct_message"),
    ("Set my Slack status to 'on vacation' until Friday", "slack", "slack_set_status"),
    ("Pin the message with the on-call rota in #ops", "slack", "slack_pin_message"),
    (
        "Pause my Slack notifications for an hour, I need to focus",
        "slack",
        "slack_snooze_notifications",
    ),
    (
        "Queue up a message in the #team Slack channel to go out at 9am tomorrow",
        "slack",
        "slack_schedule_message",
    ),
    ("React with a thumbs-up to that message", "slack", "slack_add_reaction"),
    ("Remind me on Slack at 4pm to send the invoice", "slack", "slack_create_reminder"),
    ("Archive the #project-phoenix channel, the project is over", "slack", "slack_archive_channel"),
    ("Kick the spam bot out of our Discord server", "discord", "kick-member"),
    ("Give @maria the Moderator role on Discord", "discord", "add-member-role"),
    (
        "Make an invite link for #general in Discord that expires in a day",
        "discord",
        "create-invite",
    ),
    (
        "Put @troll123 in a 10-minute time-out on the Discord server so they can't post",
        "discord",
        "timeout-member",
    ),
    # email
    ("Email the Q3 report to finance@acme.com from my Gmail", "gmail", "gmail_send_message"),
    ("Write a draft reply to Tom in Gmail but don't send it yet", "gmail", "gmail_create_draft"),
    ("Turn on my out-of-office auto reply until Monday", "gmail", "gmail_set_vacation_responder"),
    ("Find the email from DHL about my package", "gmail", "gmail_search_messages"),
    ("Mark that newsletter email as read", "gmail", "gmail_mark_message_as_read"),
    ("That phishing email in my inbox: report it as junk", "gmail", "gmail_mark_message_as_spam"),
    (
        "Schedule the spring-sale marketing campaign to go out to subscribers Friday at 10am",
        "sendgrid",
        "schedule_campaign",
    ),
    (
        "Unsubscribe jane@example.com from our marketing mailing lists",
        "sendgrid",
        "unsubscribe_contact",
    ),
    (
        "What were our email open and bounce rates last month in SendGrid?",
        "sendgrid",
        "get_email_stats",
    ),
    (
        "Send the password-reset email template to user@example.com with their reset link filled in",
        "sendgrid",
        "send_template_email",
    ),
    # sms / voice
    ("Text +1 555 0100 that the car is outside", "twilio", "sendSms"),
    (
        "Ring the customer at +44 20 7946 0958 and play the appointment reminder",
        "twilio",
        "makeCall",
    ),
    ("Buy a new Twilio number with a 415 area code", "twilio", "purchasePhoneNumber"),
    (
        "Send a 6-digit login code to +1 555 0142 so they can verify their phone",
        "twilio",
        "startVerification",
    ),
    # calendar
    ("Put a 30-minute 1:1 with Dana on my calendar Thursday at 2pm", "gcal", "create_event"),
    ("What's on my calendar tomorrow?", "gcal", "list_events"),
    (
        "Suggest a one-hour slot next week when Sam, Lee and I are all free",
        "gcal",
        "find_meeting_times",
    ),
    ("Accept the calendar invite for Friday's design review", "gcal", "respond_to_event"),
    ("Let Alex see and edit my Team calendar", "gcal", "share_calendar"),
    (
        "Add jo@acme.com as a guest to tomorrow's planning meeting on my calendar",
        "gcal",
        "add_attendee",
    ),
    ("Cancel my dentist appointment on Friday, take it off my calendar", "gcal", "delete_event"),
    # cloud storage
    ("Upload the signed contract PDF to my Drive", "gdrive", "upload-file"),
    (
        "Share the Budget 2025 folder on Drive with finance@acme.com as a viewer",
        "gdrive",
        "share-folder",
    ),
    ("Bring back the file I trashed in Drive yesterday", "gdrive", "untrash-file"),
    ("Roll the Drive doc 'Pricing' back to yesterday's version", "gdrive", "restore-revision"),
    ("Save the proposal Google Doc as a PDF", "gdrive", "convert-file"),
    ("How much Google Drive space do I have left?", "gdrive", "get-storage-quota"),
    (
        "Make a temporary download link for reports/q3.pdf in the finance bucket that expires in an hour",
        "s3",
        "presigned_url_create",
    ),
    (
        "Auto-delete anything under logs/ in the app-logs bucket after 30 days",
        "s3",
        "lifecycle_rule_create",
    ),
    ("Copy backup.tar from the prod-backups bucket to the archive bucket", "s3", "object_copy"),
    (
        "Keep old copies of files when they get overwritten in the contracts bucket",
        "s3",
        "bucket_versioning_enable",
    ),
    # dns / cdn
    ("Point blog.acme.com at 203.0.113.7", "cloudflare", "dns_record_create"),
    ("Wipe everything cached for acme.com on Cloudflare", "cloudflare", "cache_purge"),
    (
        "Block all requests from 198.51.100.0/24 to acme.com at the Cloudflare edge",
        "cloudflare",
        "firewall_rule_create",
    ),
    (
        "Turn on development mode for acme.com so my CSS changes show up right away",
        "cloudflare",
        "zone_development_mode_enable",
    ),
    (
        "We're getting DDoSed, put acme.com into under-attack mode",
        "cloudflare",
        "zone_security_level_set",
    ),
    ("Change the TTL on the api.acme.com A record to 5 minutes", "cloudflare", "dns_record_update"),
    ("Purge just https://www.shop.com/img/logo.png from Fastly", "fastly", "purge-url"),
    (
        "Invalidate everything tagged product-123 in the Fastly cache",
        "fastly",
        "purge-surrogate-key",
    ),
    (
        "Activate version 14 of the storefront CDN service config on Fastly",
        "fastly",
        "activate-service-version",
    ),
    # kubernetes
    ("Show me the logs from the checkout-7f9c pod in prod", "kubernetes", "get_pod_logs"),
    ("Bump the api deployment to 6 replicas", "kubernetes", "scale_deployment"),
    (
        "Roll the web deployment in the prod namespace back to the previous revision",
        "kubernetes",
        "rollback_deployment",
    ),
    ("Drain node ip-10-0-3-4 before we patch it", "kubernetes", "drain_node"),
    (
        "Stop the nightly-cleanup cronjob from running for now, without deleting it",
        "kubernetes",
        "suspend_cron_job",
    ),
    (
        "Bounce the payments deployment so it picks up the new config map",
        "kubernetes",
        "restart_deployment",
    ),
    ("Which pods are eating the most memory in the staging namespace?", "kubernetes", "top_pods"),
    ("Run 'env' inside the worker-5d8 pod and show me the output", "kubernetes", "exec_in_pod"),
    # vms
    ("Spin up a t3.small Ubuntu VM in us-east-1", "ec2", "launchInstance"),
    ("Reboot server i-0abc123, it's hung", "ec2", "rebootInstance"),
    ("Tear down the old staging VM i-0def456 for good", "ec2", "terminateInstance"),
    (
        "Open port 443 to the world on the web-sg security group",
        "ec2",
        "authorizeSecurityGroupIngress",
    ),
    ("Take a snapshot of volume vol-0123 before the upgrade", "ec2", "createSnapshot"),
    (
        "Shut down i-0aa11 over the weekend to save money; we'll turn it back on Monday",
        "ec2",
        "stopInstance",
    ),
    # databases
    (
        "Run SELECT count(*) FROM orders WHERE created_at > now() - interval '1 day' on the Postgres db",
        "postgres",
        "run_query",
    ),
    ("What columns does the invoices table have in Postgres?", "postgres", "describe_table"),
    ("Kill the stuck database connection with pid 4412", "postgres", "terminate_connection"),
    ("Refresh the daily_revenue materialized view", "postgres", "refresh_materialized_view"),
    (
        "Give the analyst role read access to all tables in the reporting schema",
        "postgres",
        "grant_privileges",
    ),
    (
        "Why is this query slow? Show me its execution plan: SELECT * FROM events WHERE user_id = 5",
        "postgres",
        "explain_query",
    ),
    ("Insert this JSON doc into the orders collection", "mongodb", "insert-document"),
    ("Pause the dev Atlas cluster over the weekend to save money", "mongodb", "pause-cluster"),
    (
        "Allowlist 203.0.113.4 so it can connect to our MongoDB Atlas project",
        "mongodb",
        "create-ip-access-list-entry",
    ),
    ("Make the session:abc key expire in 10 minutes", "redis", "expire-key"),
    ("What's stored under the cache key user:42:profile?", "redis", "get-key"),
    ("Wipe every key in the Redis cache database", "redis", "flush-database"),
    # payments
    ("Refund $20 of charge ch_3Nx to the customer", "stripe", "create_refund"),
    ("Void Stripe invoice in_1Pq, we billed the wrong amount", "stripe", "void_invoice"),
    ("Cancel Acme Corp's Stripe subscription", "stripe", "cancel_subscription"),
    ("What's our available Stripe balance right now?", "stripe", "get_balance"),
    ("Make a payment link for the $49 Pro plan", "stripe", "create_payment_link"),
    (
        "Pause billing on customer cus_9X's subscription for two months",
        "stripe",
        "pause_subscription",
    ),
    ("Look up the Stripe customer with email ana@globex.com", "stripe", "search_customers"),
    # crm
    ("Add Jane Roe from Globex as a new lead in the CRM", "hubspot", "hubspot_create_contact"),
    (
        "Jot a note on the Globex deal that they want annual billing",
        "hubspot",
        "hubspot_create_note",
    ),
    ("Merge the two duplicate John Smith contacts in HubSpot", "hubspot", "hubspot_merge_contacts"),
    ("Move the Initech deal to Closed Won", "hubspot", "hubspot_move_deal_stage"),
    (
        "Link contact Jane Roe to the Globex company record in the CRM",
        "hubspot",
        "hubspot_associate_records",
    ),
    # identity
    ("Temporarily suspend jdoe's Okta login while HR investigates", "okta", "suspendUser"),
    ("jdoe forgot their Okta password, send them a reset link", "okta", "resetUserPassword"),
    ("Unlock maria's account, she hit the failed sign-in limit", "okta", "unlockUser"),
    ("Sign kim out everywhere, her laptop was stolen", "okta", "revokeUserSessions"),
    ("Let the new hire li.wei into the Engineering group in Okta", "okta", "addUserToGroup"),
    ("Give raj access to the Salesforce app through Okta", "okta", "assignUserToApplication"),
    ("Her phone was replaced, make her set up MFA again from scratch", "okta", "resetUserFactors"),
    # secrets
    ("Store the new Stripe API key under secret/payments/stripe in Vault", "vault", "write-secret"),
    ("What's the DB password stored at secret/prod/db?", "vault", "read-secret"),
    ("Rotate the orders encryption key in Vault transit", "vault", "rotate-transit-key"),
    ("Revoke that leaked Vault token right now", "vault", "revoke-token"),
    (
        "Permanently wipe versions 1-3 of secret/app/config so they can never be recovered",
        "vault",
        "destroy-secret-versions",
    ),
    (
        "Get me short-lived credentials for the readonly database role",
        "vault",
        "generate-database-credentials",
    ),
    # monitoring
    ("Mute the disk-space monitor on db-3 for the next 2 hours", "datadog", "mute_monitor"),
    (
        "Set up an alert in Datadog when p95 checkout latency goes over 800ms",
        "datadog",
        "create_monitor",
    ),
    ("Search the logs for OutOfMemoryError in the last hour", "datadog", "search_logs"),
    ("What was web-1's CPU usage over the past day?", "datadog", "query_metrics"),
    ("Which monitors are firing right now?", "datadog", "list_active_alerts"),
    (
        "Schedule a Datadog downtime for Saturday 2-4am for the db hosts",
        "datadog",
        "create_downtime",
    ),
    (
        "Mark the TypeError crash in the frontend project as fixed in Sentry",
        "sentry",
        "resolve_issue",
    ),
    (
        "Show me the stack trace from the most recent occurrence of that Sentry error",
        "sentry",
        "get_issue_latest_event",
    ),
    ("Ignore that noisy Sentry error unless it happens 100 more times", "sentry", "ignore_issue"),
    # paging
    (
        "Open a PagerDuty incident on the database service so its on-call gets paged about replication lag",
        "pagerduty",
        "incident_create",
    ),
    ("Ack the PagerDuty incident about the API 500s", "pagerduty", "incident_acknowledge"),
    ("Who's on call for payments right now?", "pagerduty", "oncall_list"),
    (
        "Cover Sam's on-call shift on Saturday, put me on the schedule instead",
        "pagerduty",
        "schedule_override_create",
    ),
    ("Escalate incident P1234 to the next level", "pagerduty", "incident_escalate"),
    # wiki
    (
        "Write up a new wiki page in the Engineering space called 'On-call runbook'",
        "confluence",
        "createPage",
    ),
    (
        "Restore the Onboarding wiki page to how it looked last week",
        "confluence",
        "restorePageVersion",
    ),
    ("Leave a comment on the API design wiki page saying LGTM", "confluence", "createPageComment"),
    ("Bring back the Confluence page someone deleted this morning", "confluence", "restorePage"),
    ("Save the Security Policy wiki page as a PDF", "confluence", "exportPageAsPdf"),
    # spreadsheets
    (
        "Add these three rows to the bottom of the expenses spreadsheet",
        "sheets",
        "sheets_append_rows",
    ),
    ("What's in cells A1:D20 of the budget sheet?", "sheets", "sheets_read_range"),
    ("Make a copy of the Q3 tab within the same spreadsheet", "sheets", "sheets_duplicate_sheet"),
    (
        "Clear the values in B2:B100 of the tracker sheet but keep the formatting",
        "sheets",
        "sheets_clear_range",
    ),
    # ci/cd
    ("Kick off the nightly-integration job in Jenkins", "jenkins", "trigger-build"),
    ("Abort Jenkins build #512 of deploy-prod, it's hung", "jenkins", "abort-build"),
    (
        "Show me the console output of build 77 of the api-tests Jenkins job",
        "jenkins",
        "get-build-log",
    ),
    ("Take build agent linux-04 offline for patching", "jenkins", "take-node-offline"),
    (
        "Sync the checkout app in Argo so it picks up the latest commit",
        "argocd",
        "sync_application",
    ),
    (
        "Roll back the storefront application to the previously deployed revision in Argo CD",
        "argocd",
        "rollback_application",
    ),
    ("Lock the prod-network workspace so nobody can apply changes", "terraform", "workspace_lock"),
    ("Show me what the last Terraform run plans to add and destroy", "terraform", "run_plan_get"),
    (
        "Apply the pending Terraform run on the staging workspace, the plan looks good",
        "terraform",
        "run_apply",
    ),
    # feature flags
    ("Switch on the new-checkout feature flag in production", "launchdarkly", "flag_turn_on"),
    ("Roll the dark-mode flag out to 25% of users", "launchdarkly", "flag_rollout_set"),
    (
        "Approve the pending change request for the pricing-v2 flag",
        "launchdarkly",
        "approval_request_approve",
    ),
    (
        "Kill the new-search flag in prod, it's breaking things; everyone should get the off variation",
        "launchdarkly",
        "flag_turn_off",
    ),
    ("Let beta tester user-881 see the new-dashboard flag", "launchdarkly", "flag_target_add"),
    # analytics
    (
        "What % of people who add to cart end up paying? Funnel for the last 30 days",
        "amplitude",
        "get-funnel",
    ),
    ("How many users come back a week after signing up?", "amplitude", "get-retention"),
    (
        "Drop a marker on the product analytics charts for the Jan 5 launch",
        "amplitude",
        "create-annotation",
    ),
    ("Show me everything user 8812 did in the app today", "amplitude", "get-user-activity"),
    # support
    (
        "A customer says they were double charged, open a support ticket for them",
        "zendesk",
        "create_ticket",
    ),
    (
        "Merge support ticket 881 into 880, it's the same customer problem",
        "zendesk",
        "merge_tickets",
    ),
    (
        "Publish the 'Reset your password' help center article",
        "zendesk",
        "publish_help_center_article",
    ),
    (
        "Show me the satisfaction ratings customers gave our support team",
        "zendesk",
        "list_satisfaction_ratings",
    ),
    (
        "Add a private note on ticket 4432 that this customer is a VIP; don't let them see it",
        "zendesk",
        "add_internal_note",
    ),
    (
        "Reply to the customer on ticket 4432 that the fix ships tomorrow",
        "zendesk",
        "reply_to_ticket",
    ),
    # hr
    ("Book me off from Dec 23 to Jan 2", "bamboohr", "createTimeOffRequest"),
    ("Approve Raj's vacation request", "bamboohr", "approveTimeOffRequest"),
    ("How many PTO days do I have left?", "bamboohr", "getTimeOffBalance"),
    ("Who's out of the office this week?", "bamboohr", "getWhosOut"),
    # e-commerce
    ("Refund order #1043, the sweater arrived torn", "shopify", "shopify_create_refund"),
    (
        "We got 20 more blue mugs in the warehouse, bump the stock",
        "shopify",
        "shopify_adjust_inventory",
    ),
    (
        "Make a 15%-off code SUMMER15 for our Shopify store",
        "shopify",
        "shopify_create_discount_code",
    ),
    (
        "Ship order #1050 with UPS tracking 1Z999AA10123456784",
        "shopify",
        "shopify_create_fulfillment",
    ),
    (
        "Take the winter jacket off the storefront without deleting it",
        "shopify",
        "shopify_unpublish_product",
    ),
    (
        "Cancel order #1061, the customer changed their mind before it shipped",
        "shopify",
        "shopify_cancel_order",
    ),
    # weather / maps
    ("Will it rain in Lisbon this weekend?", "weather", "get-forecast"),
    ("How hot is it in Phoenix right now?", "weather", "get-current-conditions"),
    ("Any severe weather warnings for Miami?", "weather", "get-alerts"),
    ("How bad is the air in Delhi today?", "weather", "get-air-quality"),
    ("What time is sunset in Reykjavik tomorrow?", "weather", "get-sunrise-sunset"),
    ("What's the street address at 40.7128, -74.0060?", "maps", "reverse_geocode"),
    ("How do I drive from Oakland to Lake Tahoe?", "maps", "get_directions"),
    ("Find coffee shops within 500 m of 37.78, -122.41", "maps", "search_nearby"),
    ("What time zone is Auckland in?", "maps", "get_timezone"),
    ("Is Joe's Pizza on Carmine St open right now? Check its hours", "maps", "get_place_details"),
    # security scanning / qa
    ("Which vulnerabilities did Snyk find in the payments-api project?", "snyk", "listFindings"),
    (
        "Ignore the lodash prototype-pollution finding for 30 days, it's not exploitable",
        "snyk",
        "ignoreFinding",
    ),
    (
        "Have Snyk open a PR that upgrades the vulnerable packages in web-app",
        "snyk",
        "createFixPullRequest",
    ),
    ("Generate a software bill of materials for the api project", "snyk", "exportSbom"),
    ("Re-scan the mobile-backend project for vulnerabilities now", "snyk", "testProject"),
    ("Log a defect in TestRail from the failed login test", "testrail", "add_bug"),
    ("Mark test case C1234 as passed in run R55", "testrail", "add_test_result"),
    ("Close the 'Release 3.2 regression' test run", "testrail", "close_test_run"),
    ("Write a new test case for password reset in the Auth section", "testrail", "add_test_case"),
    # accounting / e-signature / meetings / design / smart home / cms / registry
    ("Pull the profit and loss statement for Q2", "quickbooks", "getProfitAndLossReport"),
    (
        "Record a $120 office supplies expense paid to Staples in the books",
        "quickbooks",
        "createExpense",
    ),
    (
        "Which customers owe us money and how overdue are they?",
        "quickbooks",
        "getAgedReceivablesReport",
    ),
    (
        "Enter the electricity bill from PG&E for $340, due on the 15th, in QuickBooks",
        "quickbooks",
        "createBill",
    ),
    (
        "Void the DocuSign envelope for the ACME contract, the terms changed",
        "docusign",
        "void_envelope",
    ),
    ("Nudge the people who haven't signed the NDA envelope yet", "docusign", "resend_envelope"),
    ("Set up a Zoom call with the vendor for Monday at 10am", "zoom", "create-meeting"),
    ("Who attended yesterday's all-hands Zoom meeting?", "zoom", "get-meeting-participants"),
    ("Get the join link and dial-in numbers for my 3pm Zoom", "zoom", "get-meeting-invitation"),
    ("End the Zoom meeting that's still running for everyone", "zoom", "end-meeting"),
    ("Export the hero banner frame from the Figma file as a 2x PNG", "figma", "exportImages"),
    ("Turn off the living room lights", "homeassistant", "light_turn_off"),
    ("Set the thermostat to 21 degrees", "homeassistant", "climate_set_temperature"),
    ("Lock the front door", "homeassistant", "lock_lock"),
    ("Activate the movie night scene", "homeassistant", "activate_scene"),
    ("Publish the 'Summer launch' blog entry in Contentful", "contentful", "publish-entry"),
    ("Delete the old 1.0-beta tag from our api image on Docker Hub", "dockerhub", "delete_tag"),
]
