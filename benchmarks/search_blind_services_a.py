"""The blind evaluation set of tool search: its services, the first half (see
``search_blind_catalogue.py``, which turns each into tools).  Data written by an outside author,
kept as written: ``(server, product, naming style, resources, custom tools)``.
"""

from __future__ import annotations

# --------------------------------------------------------------------------
# Servers. Resource lines: name[@parent] [!mode] [+extra,..] [-drop,..] [~fields,..] [%action=verb,..]
# Custom lines: tool|description|param=doc;param=doc
# --------------------------------------------------------------------------
SERVERS: list[tuple[str, ...]] = [
    (
        "jira",
        "Jira",
        "camel",
        """
        issue@project +archive,assign,transition,clone,move,watch,unwatch,label ~summary,issue_type,priority,assignee,description
        issue_comment@issue !crud ~body,visibility; issue_attachment@issue !min +upload,download,delete
        issue_link@issue !crud ~link_type,inward_issue,outward_issue
        epic@project !std +close,reopen ~name,summary
        sprint@board !std +start,close ~name,goal,start_date,end_date; board@project !crud
        project !full +archive,restore ~key,name,lead,project_type; component@project !std ~name,lead
        version@project !std +release,archive ~name,release_date
        worklog@issue !crud ~time_spent,started,comment; filter !std +share ~name,jql
        dashboard !std +share,copy; workflow !std +publish; workflow_scheme !crud; custom_field !std
        screen !crud; priority !crud; resolution !crud; issue_type !crud; user !ro +deactivate
        group !crud; permission_scheme !crud; notification_scheme !crud; issue_security_level !min
    """,
        """
        getCurrentUser|Returns the Jira user that the API token belongs to.|
        getIssueTransitions|Lists the workflow transitions currently available for an issue.|issue_id
        rankIssues|Reorders issues in the backlog, placing them before or after another issue.|issue_ids;rank_before
        moveIssuesToSprint|Moves one or more issues into a sprint.|sprint_id;issue_ids
        getBoardBacklog|Returns the issues in a board's backlog that are not in any sprint.|board_id
        getSprintReport|Returns completed, incomplete and removed issues for a sprint.|sprint_id
        getVelocityReport|Returns committed vs completed story points for the last sprints of a board.|board_id
    """,
    ),
    (
        "github",
        "GitHub",
        "snake",
        """
        repository !full +archive,unarchive,fork,star,rename ~name,description,private
        branch@repository !min +create,delete,rename,protect
        pull_request@repository !std +merge,close,reopen,request_review,lock ~title,head,base,body,draft
        pull_request_review@pull_request !min +create,submit,dismiss ~event,body
        pull_request_comment@pull_request !crud ~body,path,line
        issue@repository !full +close,reopen,lock,unlock,assign,label ~title,body,labels,assignees
        issue_comment@issue !crud ~body; label@repository !crud ~name,color
        milestone@repository !crud +close ~title,due_on
        release@repository !std +publish ~tag_name,name,body; tag@repository !min +create,delete
        commit@repository !ro; file@repository !min +update,delete; gist !std +fork,star
        webhook@repository !crud +test; deploy_key@repository !min +create,delete
        collaborator@repository !min +invite,remove; team !crud; team_member@team !min +add,remove
        workflow@repository !min +enable,disable,trigger
        workflow_run@repository !min +cancel,rerun,delete
        actions_secret@repository !min +create,update,delete; environment@repository !crud
        discussion@repository !std +lock,close; project_board !crud
        code_scanning_alert@repository !ro +dismiss; dependabot_alert@repository !ro +dismiss
    """,
        """
        get_me|Get details of the authenticated GitHub user.|
        search_code|Search for code across GitHub repositories using GitHub code search syntax.|query;per_page
        compare_commits|Compares two commits, branches or tags and returns the commits and diff between them.|base;head
        download_workflow_run_logs|Downloads the log archive for a GitHub Actions workflow run.|workflow_run_id
        get_pull_request_diff|Returns the unified diff of a pull request.|pull_request_id
        list_pull_request_files|Lists the files changed in a pull request.|pull_request_id
        get_pull_request_status|Returns the combined CI status checks for the head commit of a pull request.|pull_request_id
        update_pull_request_branch|Updates the pull request branch with the latest changes from the base branch.|pull_request_id
    """,
    ),
    (
        "slack",
        "Slack",
        "prefix",
        """
        channel !std +archive,unarchive,rename,join,leave ~name,is_private,topic
        message@channel !min +post,update,delete,pin,unpin,search; thread_reply@message !min +post
        reaction@message !min +add,remove; user !ro; user_group !crud +enable,disable
        reminder !crud +complete ~text,time,user; bookmark@channel !crud
        file !min +upload,delete,share; canvas !std; scheduled_message@channel !min +delete
        workflow !min
    """,
        """
        slack_send_direct_message|Sends a direct message (DM) to a single user, opening a DM conversation if needed.|user_id;text
        slack_schedule_message|Schedules a message to be posted to a channel at a future time.|channel_id;text;post_at
        slack_set_channel_topic|Sets the topic shown at the top of a channel.|channel_id;topic
        slack_invite_to_channel|Invites one or more workspace members to a channel.|channel_id;user_ids
        slack_remove_from_channel|Removes a member from a channel.|channel_id;user_id
        slack_list_channel_members|Lists the members of a channel.|channel_id
        slack_set_status|Sets the current user's status text and emoji, optionally with an expiry time.|status_text;status_emoji;expiration
        slack_get_user_presence|Returns whether a user is currently active or away.|user_id
        slack_snooze_notifications|Turns on Do Not Disturb for the current user for a number of minutes.|num_minutes
        slack_end_snooze|Ends Do Not Disturb for the current user early.|
        slack_get_permalink|Returns a permanent link to a specific message.|channel_id;message_ts
        slack_add_custom_emoji|Uploads a custom emoji image to the workspace.|name;image_url
        slack_list_custom_emoji|Lists the workspace's custom emoji.|
    """,
    ),
    (
        "discord",
        "Discord",
        "kebab",
        """
        guild !min +leave; channel@guild !crud; message@channel !min +delete,search
        thread@channel !crud +archive,lock,join,leave; role@guild !crud
        member@guild !ro +kick,ban,unban,timeout; invite@channel !min +create,delete ~max_age,max_uses
        webhook@channel !crud; scheduled_event@guild !std; emoji@guild !crud; sticker@guild !crud
        audit_log@guild !min; auto_moderation_rule@guild !crud +enable,disable; stage_instance !crud
    """,
        """
        send-message|Sends a message to a Discord channel.|channel_id;content;embeds
        edit-message|Edits a message previously sent by the bot.|channel_id;message_id;content
        bulk-delete-messages|Deletes up to 100 recent messages from a channel in one call.|channel_id;message_ids
        add-member-role|Gives a role to a guild member.|guild_id;user_id;role_id
        remove-member-role|Takes a role away from a guild member.|guild_id;user_id;role_id
    """,
    ),
    (
        "gmail",
        "Gmail",
        "prefix",
        """
        message !ro +trash,untrash,delete,mark_read,mark_unread,mark_spam,archive; draft !crud +send ~to,subject,body
        label !crud; thread !min +trash,untrash,archive; filter !crud ~criteria,action
        attachment@message !min +download; forwarding_address !crud; send_as_alias !crud +verify
        delegate !min +add,remove
    """,
        """
        gmail_send_message|Sends an email from the user's Gmail account to one or more recipients.|to;cc;subject;body;attachments
        gmail_reply_to_message|Sends a reply in the same thread as an existing message.|message_id;body;reply_all
        gmail_forward_message|Forwards a message to other recipients.|message_id;to
        gmail_get_vacation_responder|Returns the current auto-reply (vacation responder) settings.|
        gmail_set_vacation_responder|Turns the auto-reply (vacation responder / out-of-office message) on or off and sets its text and dates.|enabled;subject;body;start;end
        gmail_update_signature|Updates the email signature used for outgoing mail.|signature
        gmail_get_profile|Returns the Gmail address and mailbox totals of the user.|
    """,
    ),
    (
        "sendgrid",
        "SendGrid",
        "snake",
        """
        template !std +duplicate; template_version@template !crud +activate
        contact !full +unsubscribe ~email,first_name,last_name,list_ids; contact_list !crud
        segment !crud; sender_identity !crud +verify
        campaign !std +schedule,send,duplicate ~subject,sender_id,list_ids,html; api_key !crud
        ip_pool !crud; unsubscribe_group !crud; domain_authentication !crud +verify
        event_webhook !crud +test
    """,
        """
        send_email|Sends a transactional email through SendGrid to one or more recipients.|to;from;subject;html;text
        send_template_email|Sends an email rendered from a dynamic template with the given data.|template_id;to;dynamic_data
        get_email_stats|Returns delivery, open, click and bounce statistics for a date range.|start_date;end_date
        list_bounces|Lists email addresses that hard-bounced.|start_time;end_time
        delete_bounce|Removes an address from the bounce list so mail is delivered to it again.|email
        list_spam_reports|Lists recipients who marked your email as spam.|
        validate_email_address|Checks whether an email address is valid and deliverable.|email
    """,
    ),
    (
        "twilio",
        "Twilio",
        "camel",
        """
        message !ro +delete; call !ro; phone_number !min +purchase,update; messaging_service !crud
        recording !min +delete,download; conference !ro; conference_participant@conference !min +kick
        verify_service !crud; sip_domain !crud; subaccount !crud +suspend; usage_record !min
    """,
        """
        sendSms|Sends an SMS text message from one of your Twilio numbers to a phone number.|to;from;body
        sendWhatsappMessage|Sends a WhatsApp message via an approved Twilio sender.|to;from;body
        makeCall|Places an outbound voice call to a phone number and plays TwiML or a spoken message.|to;from;twiml
        hangupCall|Ends an in-progress call.|call_sid
        releasePhoneNumber|Releases a phone number you own back to Twilio; you stop being billed for it.|phone_number_sid
        searchAvailablePhoneNumbers|Finds phone numbers available to buy, by country, area code or pattern.|country;area_code;contains
        startVerification|Sends a one-time verification code by SMS, voice or email.|service_sid;to;channel
        checkVerification|Checks a one-time code the user entered.|service_sid;to;code
        lookupPhoneNumber|Returns carrier and caller-name information for a phone number.|phone_number
    """,
    ),
    (
        "gcal",
        "Google Calendar",
        "snake",
        """
        event@calendar !full +move ~summary,start,end,attendees,location; calendar !std
        event_attachment@event !min +add,remove; calendar_list_entry !crud; setting !min; color !min
    """,
        """
        respond_to_event|Sets the current user's RSVP (accept, decline, tentative) for an event invitation.|event_id;response
        query_free_busy|Returns busy time intervals for a set of calendars over a time range.|calendar_ids;time_min;time_max
        find_meeting_times|Suggests time slots when all of the given attendees are free for a meeting of a given length.|attendees;duration_minutes;window_start;window_end
        add_attendee|Adds a guest to an existing event and sends them an invitation.|event_id;email
        remove_attendee|Removes a guest from an event.|event_id;email
        list_event_instances|Lists the individual occurrences of a recurring event.|event_id
        share_calendar|Shares a calendar with a person or group with a role: see free/busy, read, edit or manage.|calendar_id;email;role
        unshare_calendar|Removes a person's access to a calendar.|calendar_id;email
        list_calendar_sharing|Lists who a calendar is shared with and their roles.|calendar_id
        set_working_hours|Sets the working hours shown to others when they schedule meetings with you.|days;start;end
    """,
    ),
    (
        "gdrive",
        "Google Drive",
        "kebab",
        """
        file !full +upload,download,copy,move,share,trash,untrash,star,rename,lock
        folder !std +share,move,trash,rename; permission@file !crud ~role,type,email
        comment@file !crud +resolve ~content; reply@comment !crud; revision@file !ro +download
        shared_drive !crud; shortcut !crud
    """,
        """
        restore-revision|Reverts a file to an earlier revision, making that version the current one.|file_id;revision_id
        convert-file|Exports a Google Docs, Sheets or Slides file to another format such as PDF or DOCX.|file_id;mime_type
        get-storage-quota|Returns how much Drive storage is used and how much is left.|
        empty-trash|Permanently deletes every file in the trash.|
        transfer-ownership|Transfers ownership of a file to another user.|file_id;new_owner_email
    """,
    ),
    (
        "s3",
        "Amazon S3",
        "resfirst",
        """
        bucket !std; object@bucket !std +upload,download,copy,move,tag -create,update
        bucket_policy@bucket !min +update,delete
        lifecycle_rule@bucket !crud ~prefix,expiration_days,transition_storage_class
        cors_rule@bucket !crud; replication_rule@bucket !crud; access_point !crud
        inventory_configuration@bucket !crud; multipart_upload@bucket !min +abort,complete
        object_lock_configuration@bucket !min +update; storage_lens_dashboard !crud
        batch_job !crud +cancel
    """,
        """
        presigned_url_create|Generates a time-limited pre-signed URL that lets anyone download (or upload) a specific object without AWS credentials.|bucket;key;expires_in;method
        bucket_versioning_enable|Turns on versioning for a bucket so overwritten and deleted objects are kept.|bucket
        bucket_versioning_suspend|Suspends versioning for a bucket.|bucket
        bucket_public_access_block|Blocks all public access to a bucket.|bucket
        bucket_size_get|Returns total size in bytes and object count for a bucket.|bucket
    """,
    ),
    (
        "cloudflare",
        "Cloudflare",
        "resfirst",
        """
        zone !std; dns_record@zone !full ~type,name,content,ttl,proxied; page_rule@zone !crud
        firewall_rule@zone !crud ~expression,action,description; worker !std +deploy
        worker_route@zone !crud; kv_namespace !crud; ssl_certificate@zone !min +delete
        custom_hostname@zone !crud; load_balancer@zone !crud; load_balancer_pool !crud
        health_check@zone !crud; rate_limit_rule@zone !crud; access_application !crud
        access_policy@access_application !crud; tunnel !crud; r2_bucket !crud; pages_project !crud
        pages_deployment@pages_project !min +rollback,delete
    """,
        """
        cache_purge|Purges cached content for a zone: everything, or only specific URLs, hostnames, tags or prefixes.|zone_id;purge_everything;files;tags
        zone_development_mode_enable|Turns on Development Mode, temporarily bypassing the cache so changes at the origin are visible immediately.|zone_id
        zone_development_mode_disable|Turns off Development Mode for a zone.|zone_id
        zone_analytics_get|Returns requests, bandwidth, threats and cache ratio for a zone over a time range.|zone_id;since;until
        zone_security_level_set|Sets the security level (off, low, medium, high, under_attack) for a zone.|zone_id;level
    """,
    ),
    (
        "fastly",
        "Fastly",
        "kebab",
        """
        service !std +clone; service_version@service !min +create,activate,deactivate,clone,lock
        backend@service !crud ~address,port,use_ssl; domain@service !crud; vcl_snippet@service !crud
        dictionary@service !crud; dictionary_item@dictionary !crud; tls_certificate !crud
        tls_subscription !crud; logging_endpoint@service !crud; healthcheck@service !crud
        condition@service !crud; header@service !crud
    """,
        """
        purge-url|Purges a single URL from the Fastly cache.|url;soft
        purge-all|Purges all cached content for a service.|service_id
        purge-surrogate-key|Purges all cached objects tagged with a surrogate key.|service_id;key;soft
        get-service-stats|Returns request, bandwidth and hit-ratio stats for a service.|service_id;from;to
        check-edge-caching|Shows how a URL is cached across Fastly POPs.|url
    """,
    ),
    (
        "kubernetes",
        "Kubernetes",
        "snake",
        """
        pod@namespace !ro +delete %get=describe
        deployment@namespace !std +scale,restart,rollback,pause,resume %get=describe
        service@namespace !crud %get=describe; namespace !crud %get=describe
        config_map@namespace !crud; secret@namespace !crud; ingress@namespace !crud
        node !ro +cordon,uncordon,drain %get=describe; stateful_set@namespace !crud +scale,restart
        daemon_set@namespace !crud +restart; job@namespace !crud
        cron_job@namespace !crud +suspend,resume,trigger; persistent_volume_claim@namespace !crud
        persistent_volume !ro +delete; horizontal_pod_autoscaler@namespace !crud
        service_account@namespace !crud; role_binding@namespace !crud; cluster_role !crud
        network_policy@namespace !crud; event@namespace !min; custom_resource_definition !ro
        storage_class !crud
    """,
        """
        get_pod_logs|Fetches logs from a container in a pod, optionally only the last N lines or the previous crashed container.|namespace;pod;container;tail_lines;previous
        exec_in_pod|Runs a command inside a running container and returns its output.|namespace;pod;command
        port_forward|Forwards a local port to a port on a pod.|namespace;pod;local_port;remote_port
        apply_manifest|Creates or updates resources from a YAML manifest (kubectl apply).|manifest;namespace
        get_rollout_status|Shows the progress of a deployment rollout.|namespace;deployment
        top_pods|Shows CPU and memory usage of pods.|namespace
        top_nodes|Shows CPU and memory usage of nodes.|
        switch_context|Switches the active kubeconfig context to another cluster.|context
    """,
    ),
    (
        "ec2",
        "Amazon EC2",
        "camel",
        """
        instance !std +launch,start,stop,reboot,terminate -create,delete
        volume !std +attach,detach ~size_gb,volume_type,availability_zone
        snapshot !std +copy ~volume_id,description; security_group !std ~name,description,vpc_id
        key_pair !crud -update; image !std +copy,deregister
        elastic_ip !min +allocate,associate,disassociate; launch_template !std
        auto_scaling_group !std +scale; vpc !std; subnet@vpc !std; route_table@vpc !crud
        internet_gateway !crud +attach,detach; nat_gateway !crud
        network_interface !crud +attach,detach; placement_group !crud
        spot_instance_request !crud +cancel; reserved_instance !ro
    """,
        """
        authorizeSecurityGroupIngress|Adds an inbound rule to a security group allowing traffic on a port range from a CIDR block or another group.|group_id;protocol;port;cidr
        revokeSecurityGroupIngress|Removes an inbound rule from a security group.|group_id;protocol;port;cidr
        getConsoleOutput|Returns the serial console output of an instance, useful for debugging boot problems.|instance_id
        modifyInstanceType|Changes the instance type (size) of a stopped instance.|instance_id;instance_type
        releaseAddress|Releases an Elastic IP address back to AWS.|allocation_id
    """,
    ),
    (
        "postgres",
        "PostgreSQL",
        "snake",
        """
        database !crud %get=describe; schema@database !crud
        table@schema !std +rename -search %get=describe; column@table !crud; index@table !crud
        view@schema !crud; materialized_view@schema !crud +refresh; role !crud
        extension@database !min +install,uninstall; function@schema !crud
        trigger@table !crud +enable,disable; sequence@schema !crud; backup !crud
        replication_slot !crud; publication !crud; subscription !crud; connection !ro; slow_query !ro
        tablespace !crud
    """,
        """
        run_query|Executes a SQL statement against the database and returns the resulting rows.|sql;database;params
        explain_query|Returns the query plan (EXPLAIN ANALYZE) for a SQL statement.|sql
        grant_privileges|Grants privileges (SELECT, INSERT, ...) on tables or schemas to a role.|role;privileges;on
        revoke_privileges|Revokes privileges on tables or schemas from a role.|role;privileges;on
        terminate_connection|Terminates a backend connection by its process ID (pg_terminate_backend).|pid
        cancel_query|Cancels the query currently running in a backend without closing its connection.|pid
        restore_backup|Restores a database from a backup into a new or existing database.|backup_id;target_database
        vacuum_table|Runs VACUUM (optionally ANALYZE or FULL) on a table to reclaim space and update statistics.|table;analyze;full
        get_table_size|Returns the on-disk size of a table including indexes.|table
        list_locks|Lists locks currently held or awaited.|
    """,
    ),
    (
        "mongodb",
        "MongoDB Atlas",
        "kebab",
        """
        database !crud; collection@database !std +rename
        document@collection !std %create=insert ~document; index@collection !crud; database_user !crud
        cluster !std +pause,resume,scale; ip_access_list_entry !crud ~cidr_block,comment
        backup_snapshot@cluster !crud; restore_job@cluster !crud +cancel; search_index@collection !crud
        alert_configuration !crud +enable,disable; project !crud; api_key !crud
    """,
        """
        aggregate|Runs an aggregation pipeline on a collection and returns the results.|database;collection;pipeline
        run-command|Runs an arbitrary database command.|database;command
        get-collection-stats|Returns document count, storage size and index sizes of a collection.|database;collection
    """,
    ),
    (
        "stripe",
        "Stripe",
        "snake",
        """
        customer !full ~email,name,description; payment_intent !std +confirm,capture,cancel
        charge !ro +capture; refund !crud +cancel -delete ~charge,payment_intent,amount,reason
        invoice !std +finalize,void,send; invoice_item !crud; subscription !std +cancel,pause,resume
        subscription_item@subscription !crud; price !std +archive -delete; product !std +archive
        coupon !crud; promotion_code !crud; payout !ro +create,cancel; dispute !ro +update,close
        payment_link !crud +deactivate ~price,quantity; tax_rate !crud; webhook_endpoint !crud
        balance_transaction !ro; checkout_session !crud +expire; setup_intent !crud +confirm,cancel
        payment_method !ro +attach,detach; credit_note !crud +void; quote !crud +finalize,cancel
    """,
        """
        get_balance|Retrieves the current Stripe account balance, split into available and pending funds.|
        create_usage_record|Reports metered usage for a subscription item.|subscription_item_id;quantity;timestamp
    """,
    ),
    (
        "hubspot",
        "HubSpot",
        "prefix",
        """
        contact !full +mergedup ~email,firstname,lastname,company,lifecyclestage; company !full
        deal !full ~dealname,amount,pipeline,dealstage; pipeline !crud; pipeline_stage@pipeline !crud
        note !std ~body,associated_record_id; task !std +complete ~subject,due_date,owner; meeting !std
        call !std; owner !ro; contact_list !crud; form !crud; form_submission@form !min; product !crud
        quote !crud; line_item !crud; property !crud; workflow !crud +enable,disable
        marketing_email !crud
    """,
        """
        hubspot_move_deal_stage|Moves a deal to a different stage of its pipeline, e.g. from Proposal to Closed Won.|deal_id;stage_id
        hubspot_associate_records|Creates an association between two CRM records, e.g. a contact and a company.|from_object;from_id;to_object;to_id
        hubspot_add_contact_to_list|Adds contacts to a static contact list.|list_id;contact_ids
    """,
    ),
    (
        "okta",
        "Okta",
        "camel",
        """
        user !full +activate,deactivate,suspend,unsuspend,unlock,reset_password,expire_password ~email,first_name,last_name,login
        group !std; group_rule !crud +activate,deactivate; application !std +activate,deactivate
        authorization_server !crud +activate,deactivate
        authorization_policy@authorization_server !crud; factor@user !min +enroll,delete
        identity_provider !crud +activate,deactivate; policy !crud +activate,deactivate
        network_zone !crud +activate,deactivate; api_token !min +revoke; trusted_origin !crud
        event_hook !crud +verify; inline_hook !crud; brand !crud; domain !crud +verify
    """,
        """
        addUserToGroup|Adds a user to a group.|group_id;user_id
        removeUserFromGroup|Removes a user from a group.|group_id;user_id
        assignUserToApplication|Assigns an application to a user so it appears on their dashboard and they can sign in to it.|app_id;user_id
        unassignUserFromApplication|Removes a user's assignment to an application.|app_id;user_id
        revokeUserSessions|Signs a user out of all active sessions on all devices and apps.|user_id;oauth_tokens
        resetUserFactors|Resets all MFA factors of a user so they must enroll again.|user_id
        getSystemLogs|Queries the Okta System Log for audit events such as sign-ins and admin actions.|since;filter
        listUserGroups|Lists the groups a user belongs to.|user_id
        listGroupMembers|Lists the users in a group.|group_id
    """,
    ),
    (
        "vault",
        "HashiCorp Vault",
        "kebab",
        """
        policy !crud %create=write,get=read; token !min +create,revoke,renew; token_role !crud
        lease !min +revoke,renew; transit_key !crud +rotate; auth_method !min +enable,disable
        secrets_engine !min +enable,disable; approle_role !crud; database_connection !crud
        database_role !crud; pki_role !crud; audit_device !min +enable,disable; namespace !crud
        entity !crud; entity_alias@entity !crud; group !crud
    """,
        """
        read-secret|Reads a secret (all of its key/value pairs) at a path in the KV secrets engine.|path;version
        write-secret|Creates or updates a secret at a path in the KV secrets engine, creating a new version.|path;data
        list-secrets|Lists secret names under a path.|path
        delete-secret|Soft-deletes the latest version of a secret; it can be undeleted.|path
        undelete-secret|Restores soft-deleted versions of a secret.|path;versions
        destroy-secret-versions|Permanently destroys specific versions of a secret; they can never be recovered.|path;versions
        encrypt-data|Encrypts plaintext with a named transit key.|key;plaintext
        decrypt-data|Decrypts ciphertext with a named transit key.|key;ciphertext
        generate-database-credentials|Generates a short-lived database username and password from a database role.|role
        issue-certificate|Issues a new TLS certificate from a PKI role.|role;common_name;ttl
        revoke-certificate|Revokes a certificate by serial number.|serial_number
        get-seal-status|Returns whether Vault is sealed and its unseal progress.|
    """,
    ),
    (
        "datadog",
        "Datadog",
        "snake",
        """
        monitor !full +mute,unmute,clone ~name,type,query,message,thresholds; dashboard !std +clone
        downtime !crud +cancel -delete ~scope,start,end,message; slo !std
        synthetic_test !std +pause,resume,trigger; notebook !crud; metric !ro +update; event !ro
        log_pipeline !crud; log_index !crud; log_archive !crud; service_definition !crud; api_key !crud
        application_key !crud; role !crud; user !std +disable; team !crud
        security_monitoring_rule !crud; security_signal !ro; host !ro +mute,unmute
    """,
        """
        query_metrics|Queries timeseries metric data, e.g. avg:system.cpu.user{host:web-1}, over a time range.|query;from;to
        search_logs|Searches log events by query and time range.|query;from;to;limit
        aggregate_logs|Computes counts or metrics over logs grouped by facets.|query;group_by;compute
        submit_metric|Submits custom metric data points.|metric;points;tags
        post_event|Posts an event to the Datadog event stream, e.g. a deploy marker.|title;text;tags
        list_active_alerts|Lists monitors that are currently in Alert or Warn state.|tags
    """,
    ),
    (
        "pagerduty",
        "PagerDuty",
        "resfirst",
        """
        incident !std +acknowledge,resolve,snooze,reassign,escalate,mergedup -delete ~title,service_id,urgency,body
        incident_note@incident !min +create; service !std +enable,disable; escalation_policy !crud
        schedule !crud; schedule_override@schedule !crud ~start,end,user_id; maintenance_window !crud
        team !crud; user !crud; alert@incident !ro +resolve; business_service !crud; priority !min
        response_play !crud; event_orchestration !crud; status_page_post !crud; extension !crud
        addon !crud; vendor !min
    """,
        """
        oncall_list|Lists who is on call right now (or in a time window) for given schedules or escalation policies.|schedule_ids;escalation_policy_ids;since;until
        event_send|Sends a trigger, acknowledge or resolve event to a service integration via the Events API v2.|routing_key;event_action;summary;severity
        incident_responder_request|Requests additional responders (users or escalation policies) to join an incident.|incident_id;responders;message
    """,
    ),
]
