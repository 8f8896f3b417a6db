"""What people ask, and the catalogue tool (``server/tool`` of ``search_catalogue.py``) that does
it: the fixed evaluation set of ``bench_search.py``.

Written before the ranker was tuned and kept fixed: a request says it as a person would ("add",
"revoke", "purge", "show me", "find", "get rid of", "bug", "box"), not in the API's words.
"""

from __future__ import annotations

__all__ = ["REQUESTS"]

REQUESTS: tuple[tuple[str, str], ...] = (
    # code hosting
    ("file a bug about the login page crashing", "github/create_issue"),
    ("open a new issue in the webapp repo", "github/create_issue"),
    ("find bugs mentioning the payment timeout", "github/search_issue"),
    ("show me the open pull requests", "github/list_pull_requests"),
    ("merge PR 42", "github/merge_pull_request"),
    ("ask alice to review my pull request", "github/request_review"),
    ("make a new branch called release-2", "github/create_branch"),
    ("get rid of the old feature branch", "github/delete_branch"),
    ("close issue 17 as won't fix", "github/close_issue"),
    ("cut a new release v1.4.0", "github/create_release"),
    ("copy the repo into my account", "github/fork_repository"),
    ("add a webhook that posts to our CI", "github/create_webhook"),
    ("put the bug label on this issue", "github/tag_issue"),
    ("reopen the ticket about dark mode in github", "github/reopen_issue"),
    # DNS
    ("add an A record for api.example.com", "dns/create_record"),
    ("remove the stale CNAME for old.example.com", "dns/delete_record"),
    ("what does www.example.com resolve to", "dns/lookup_record"),
    ("change the TTL of the MX record", "dns/update_record"),
    ("extend our domain registration by two years", "dns/renew_domain"),
    ("show all DNS zones", "dns/list_zones"),
    # mail
    ("email the quarterly report to alice", "mail/send_message"),
    ("answer bob's last email", "mail/reply_to_message"),
    ("forward this mail to the finance team", "mail/forward_message"),
    ("find emails from the bank about my statement", "mail/search_message"),
    ("mark all these emails as read", "mail/mark_as_read"),
    ("file this email in the receipts folder", "mail/move_message"),
    ("write a draft to the landlord", "mail/create_draft"),
    ("set up a rule that sends newsletters to a folder", "mail/create_filter"),
    # calendar
    ("schedule a meeting with the team tomorrow at 10", "calendar/create_event"),
    ("when are Ada and Bob both free this week", "calendar/find_free_time"),
    ("decline the 3pm invite", "calendar/respond_to_event"),
    ("reserve the big conference room for friday", "calendar/book_room"),
    ("move my dentist appointment to next week", "calendar/update_event"),
    ("what's on my calendar today", "calendar/list_events"),
    ("call off the team offsite event", "calendar/cancel_event"),
    # storage
    ("upload this file to the backups bucket", "storage/upload_object"),
    ("fetch report.pdf from the s3 bucket", "storage/download_object"),
    ("make a new bucket for logs", "storage/create_bucket"),
    ("generate a temporary download link for the video", "storage/create_presigned_url"),
    ("wipe the tmp bucket", "storage/delete_bucket"),
    # Kubernetes
    ("show me the logs of the crashing pod", "k8s/get_logs"),
    ("scale the web deployment to 5 replicas", "k8s/scale_deployment"),
    ("restart the api deployment", "k8s/rollout_restart"),
    ("undo the last deploy of checkout", "k8s/rollback_deployment"),
    ("kill the stuck pod", "k8s/delete_pod"),
    ("run ls inside the worker container", "k8s/exec_in_pod"),
    ("take node 3 out of rotation for maintenance", "k8s/drain_node"),
    ("what pods are running in staging", "k8s/list_pods"),
    ("add a new namespace for the data team", "k8s/create_namespace"),
    # compute
    ("take a snapshot of the build VM", "vm/create_snapshot"),
    ("boot the build server", "vm/start_instance"),
    ("shut down the test machine", "vm/stop_instance"),
    ("give the database box more CPU", "vm/resize_instance"),
    ("upload my public ssh key", "vm/import_ssh_key"),
    ("open port 443 in the firewall group", "vm/update_security_group"),
    # databases
    ("run a SQL query to count yesterday's orders", "db/run_query"),
    ("why is this query slow, show the plan", "db/explain_query"),
    ("back up the production database now", "db/create_backup"),
    ("bring back the database from last night's backup", "db/restore_backup"),
    ("promote the replica after the primary died", "db/failover_replica"),
    ("add a read-only database user for analytics", "db/create_user"),
    # billing
    ("refund the customer's last payment", "billing/refund_payment"),
    ("cancel my subscription", "billing/cancel_subscription"),
    ("send the march invoice to acme", "billing/send_invoice"),
    ("give them a 20% discount code", "billing/create_coupon"),
    ("put the subscription on hold for a month", "billing/pause_subscription"),
    ("show unpaid invoices", "billing/list_invoices"),
    ("bill the customer 50 dollars", "billing/charge_customer"),
    # identity
    ("reset the password for bob", "iam/reset_password"),
    ("revoke the leaked API key", "iam/revoke_api_key"),
    ("sign bob out of every device", "iam/revoke_session"),
    ("add carol to the admins group", "iam/add_user_to_group"),
    ("kick dave out of the contractors group", "iam/remove_user_from_group"),
    ("require two-factor login for eve", "iam/enable_mfa"),
    ("lock out the departed employee's account", "iam/suspend_user"),
    ("issue a new secret for the deploy key and expire the old one", "iam/rotate_api_key"),
    ("onboard a new user account for frank", "iam/create_user"),
    # security
    ("scan the payments service for vulnerabilities", "security/start_scan"),
    ("mark that CVE finding as a false positive", "security/dismiss_finding"),
    ("list the critical security findings", "security/list_findings"),
    # monitoring
    ("mute the disk space alert for an hour", "monitor/silence_alert"),
    ("ack the firing alert", "monitor/acknowledge_alert"),
    ("page whoever is on call about the outage", "monitor/page_on_call"),
    ("graph CPU usage over the last day", "monitor/query_metric"),
    ("declare an incident for the checkout outage", "monitor/create_incident"),
    ("close the incident, it's fixed", "monitor/resolve_incident"),
    # CI/CD
    ("why did the CI job fail? show its log", "ci/get_job_log"),
    ("rerun the failed build job", "ci/retry_job"),
    ("kick off the pipeline on main", "ci/trigger_pipeline"),
    ("grab the compiled binary from the last build", "ci/download_artifact"),
    ("ship the staging deploy to production", "ci/promote_deployment"),
    ("set a CI secret variable for the npm token", "ci/create_variable"),
    # wiki
    ("write a wiki page about our on-call process", "wiki/create_page"),
    ("publish the draft runbook", "wiki/publish_page"),
    ("find the wiki page about vacation policy", "wiki/search_page"),
    ("notify me when the architecture page changes", "wiki/watch_page"),
    # chat
    ("post a message in the ops channel", "chat/post_message"),
    ("DM alice that the build is green", "chat/send_direct_message"),
    ("make a new channel for the launch", "chat/create_channel"),
    ("add bob and carol to #launch", "chat/invite_to_channel"),
    ("pin the deploy checklist message", "chat/pin_message"),
    ("react with a thumbs up", "chat/create_reaction"),
    # CRM
    ("add a new contact for Jane at Initech", "crm/create_contact"),
    ("note that I called Jane today", "crm/log_call"),
    ("turn this lead into a customer deal", "crm/convert_lead"),
    ("move the acme deal to negotiation", "crm/move_deal_stage"),
    ("these two contacts are the same person, combine them", "crm/merge_contacts"),
    # helpdesk
    ("open a support ticket about the outage", "helpdesk/create_ticket"),
    ("answer the customer's ticket", "helpdesk/reply_to_ticket"),
    ("send this ticket up to tier 2", "helpdesk/escalate_ticket"),
    ("give ticket 881 to maria", "helpdesk/assign_ticket"),
    ("mark the ticket solved and close it", "helpdesk/close_ticket"),
    # files
    ("rename the budget spreadsheet", "files/rename_file"),
    ("give the design folder to the marketing team", "files/share_folder"),
    ("empty the trash on the drive", "files/empty_trash"),
    ("get back the previous version of the contract", "files/restore_revision"),
    ("put the slides in the shared drive", "files/upload_file"),
    # shop
    ("ship order 1042", "shop/fulfill_order"),
    ("we got 30 more mugs in stock", "shop/adjust_inventory"),
    ("print a shipping label for the parcel", "shop/print_shipping_label"),
    ("add a new product: blue t-shirt", "shop/create_product"),
    ("take the winter sale discount down", "shop/delete_discount"),
    ("show this week's orders", "shop/list_orders"),
    # HR
    ("approve sam's vacation request", "hr/approve_time_off"),
    ("set up onboarding for the new hire starting monday", "hr/onboard_employee"),
    ("book an interview with the candidate on thursday", "hr/schedule_interview"),
    ("post a job opening for a backend engineer", "hr/create_job_posting"),
    # flags
    ("turn on the new checkout flag in production", "flags/toggle_flag"),
    ("roll the feature out to 10 percent of users", "flags/set_rollout_percentage"),
    ("end the pricing A/B test and keep variant B", "flags/conclude_experiment"),
    # vault
    ("what's the database password in the vault", "vault/read_secret"),
    ("store the new stripe key as a secret", "vault/write_secret"),
    ("rotate the encryption key for backups", "vault/rotate_encryption_key"),
    ("get a cert for internal.example.com", "vault/issue_certificate"),
    # CDN
    ("clear the CDN cache for /images", "cdn/purge_cache"),
    ("renew the certificate for example.com on the CDN", "cdn/renew_tls_certificate"),
    ("ban this abusive IP address", "cdn/block_ip"),
    ("how much bandwidth did the CDN serve last month", "cdn/get_traffic_stats"),
    # analytics and others
    ("how many users come back after a week", "analytics/get_retention"),
    ("run the weekly signups report", "analytics/run_report"),
    ("translate this paragraph to French", "translate/translate_text"),
    ("what language is this text in", "translate/detect_language"),
    ("will it rain in Lisbon tomorrow", "weather/get_forecast"),
)
