"""The blind evaluation set of tool search: its services, the second half (see
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
        "confluence",
        "Confluence",
        "camel",
        """
        page@space !full +move,copy,archive,restore,watch ~title,body,parent_page_id
        space !std +archive; page_comment@page !crud +resolve ~body; inline_comment@page !crud +resolve
        attachment@page !min +upload,download,delete; page_label@page !min +add,remove
        blog_post@space !std; template@space !crud; page_version@page !min
        page_restriction@page !min +add,remove; space_permission@space !min +add,remove
        whiteboard@space !crud; content_property@page !crud; user !ro; group !min
    """,
        """
        restorePageVersion|Reverts a page to an earlier version, making that version current.|page_id;version_number
        getPageChildren|Lists the child pages of a page.|page_id
        exportPageAsPdf|Exports a page to a PDF file.|page_id
    """,
    ),
    (
        "sheets",
        "Google Sheets",
        "prefix",
        """
        spreadsheet !std +copy; sheet@spreadsheet !crud +duplicate,rename; chart@sheet !crud
        named_range@spreadsheet !crud; filter_view@sheet !crud; pivot_table@sheet !crud
        conditional_format_rule@sheet !crud; protected_range@sheet !crud
        data_validation_rule@sheet !crud; developer_metadata@spreadsheet !crud
    """,
        """
        sheets_read_range|Reads cell values from a range in A1 notation, e.g. 'Budget!A1:D20'.|spreadsheet_id;range
        sheets_write_range|Writes values to a range, overwriting the existing cells.|spreadsheet_id;range;values
        sheets_append_rows|Appends rows after the last row of data in a sheet.|spreadsheet_id;range;values
        sheets_clear_range|Clears the values in a range but keeps its formatting.|spreadsheet_id;range
        sheets_sort_range|Sorts the rows of a range by one or more columns.|spreadsheet_id;range;sort_specs
        sheets_format_cells|Applies formatting (bold, colours, number format) to a range.|spreadsheet_id;range;format
        sheets_delete_rows|Deletes rows from a sheet by index.|spreadsheet_id;sheet_id;start_index;end_index
        sheets_find_replace|Finds and replaces text across a sheet or the whole spreadsheet.|spreadsheet_id;find;replacement
        sheets_merge_cells|Merges the cells in a range into one.|spreadsheet_id;range
        sheets_batch_get_ranges|Reads several ranges in one call.|spreadsheet_id;ranges
    """,
    ),
    (
        "jenkins",
        "Jenkins",
        "kebab",
        """
        job !std +enable,disable,copy; build@job !ro +abort,delete; node !crud; credential !crud
        plugin !min +install,uninstall; view !crud; folder !crud; queue_item !ro +cancel; user !ro
    """,
        """
        trigger-build|Queues a new build of a job, optionally with build parameters.|job_name;parameters
        get-build-log|Returns the console output (log) of a build.|job_name;build_number
        get-last-build|Returns the most recent build of a job and its result.|job_name
        replay-build|Re-runs a Pipeline build with the same (or an edited) script.|job_name;build_number;script
        take-node-offline|Marks a build agent offline so no new builds are scheduled on it.|node_name;reason
        bring-node-online|Brings an offline build agent back online.|node_name
        get-test-report|Returns the test results recorded for a build.|job_name;build_number
        safe-restart|Restarts the Jenkins controller once running builds finish.|
    """,
    ),
    (
        "argocd",
        "Argo CD",
        "snake",
        """
        application !std +sync,rollback,refresh; project !crud; repository !crud; cluster !crud
        application_set !crud; repository_credential !crud; certificate !crud; account !ro
    """,
        """
        get_application_manifests|Renders the manifests Argo CD would apply for an application.|application
        get_application_diff|Shows the differences between the live state and git for an application.|application
        terminate_operation|Terminates the sync operation currently running on an application.|application
        get_application_resource_tree|Returns the tree of Kubernetes resources managed by an application.|application
    """,
    ),
    (
        "launchdarkly",
        "LaunchDarkly",
        "resfirst",
        """
        flag !std +archive,clone ~key,name,kind,variations; segment !crud; environment !crud
        project !crud; experiment !crud +start,stop; metric !crud; flag_trigger@flag !crud
        approval_request@flag !ro +approve,reject,create; release_pipeline !crud; team !crud
        member !crud; webhook !crud; relay_proxy_config !crud; context_kind !crud
        scheduled_change@flag !crud; code_reference !ro; audit_log_entry !ro
    """,
        """
        flag_turn_on|Turns targeting on for a feature flag in an environment so its rules are served.|project_key;flag_key;environment_key
        flag_turn_off|Turns targeting off for a feature flag in an environment; everyone gets the off variation.|project_key;flag_key;environment_key
        flag_rollout_set|Sets a percentage rollout for a flag in an environment, e.g. 25% true / 75% false.|flag_key;environment_key;weights
        flag_target_add|Adds individual users or contexts to a flag's target list for a variation.|flag_key;environment_key;variation;context_keys
        flag_evaluate|Evaluates a flag for a given context and returns the variation it would receive.|flag_key;environment_key;context
        flag_status_get|Returns whether a flag is launched, inactive or new in each environment.|flag_key
    """,
    ),
    (
        "amplitude",
        "Amplitude",
        "kebab",
        """
        cohort !crud; chart !crud; dashboard !crud; annotation !crud ~date,label,details
        event_type !ro +update; user_property !ro; event_category !crud
    """,
        """
        get-funnel|Computes a conversion funnel across a sequence of events over a date range.|events;start;end;group_by
        get-retention|Computes N-day retention: how many users come back after a starting event.|start_event;return_event;start;end
        get-segmentation|Computes event totals or uniques over time, optionally segmented by a property.|event;start;end;metric;group_by
        get-active-users|Returns daily, weekly or monthly active user counts.|start;end;interval
        get-revenue-ltv|Returns revenue and lifetime value for new-user cohorts.|start;end
        get-user-activity|Returns the event stream of a single user.|user_id;limit
        search-users|Finds a user by user ID, device ID or Amplitude ID.|user
        track-event|Sends an event to Amplitude for a user (HTTP ingestion).|user_id;event_type;event_properties
        delete-user-data|Requests deletion of all data for the given users (GDPR).|user_ids
        get-session-length|Returns the distribution of session lengths.|start;end
        export-raw-events|Exports raw event data for a time range as a zip of JSON files.|start;end
    """,
    ),
    (
        "zendesk",
        "Zendesk",
        "snake",
        """
        ticket !full +assign,solve,mergedup ~subject,description,requester_email,priority,type
        ticket_comment@ticket !min; macro !crud +apply; view !crud; trigger !crud; automation !crud
        sla_policy !crud; organization !std; user !std +suspend; group !crud; satisfaction_rating !ro
        help_center_article !std +publish,unpublish; help_center_section !crud; ticket_field !crud
        ticket_form !crud; brand !crud; custom_status !crud
    """,
        """
        reply_to_ticket|Adds a public reply to a ticket; the requester is emailed the reply.|ticket_id;body
        add_internal_note|Adds a private internal note to a ticket, visible only to agents.|ticket_id;body
    """,
    ),
    (
        "bamboohr",
        "BambooHR",
        "camel",
        """
        employee !full ~first_name,last_name,job_title,department,hire_date
        time_off_request !std +approve,reject,cancel ~employee_id,time_off_type,start,end,note
        time_off_policy !crud; job_opening !std +close; applicant@job_opening !std
        performance_review !crud; department !crud; location !crud; benefit_plan !crud
        training_record@employee !crud; employee_document@employee !min +upload,download,delete
        onboarding_task@employee !crud +complete; goal@employee !crud
        compensation_record@employee !crud; emergency_contact@employee !crud; asset@employee !crud
    """,
        """
        terminateEmployee|Records an employee's termination (last day, reason) and ends their employment.|employee_id;termination_date;reason
        getTimeOffBalance|Returns remaining vacation/PTO and sick days for an employee as of a date.|employee_id;as_of
        getWhosOut|Lists employees who are out of office on approved time off in a date range.|start;end
        getCompanyDirectory|Returns the company employee directory.|
        getOrgChart|Returns the reporting structure below a manager.|employee_id
        getHeadcountReport|Returns headcount by department and location over time.|start;end
    """,
    ),
    (
        "shopify",
        "Shopify",
        "prefix",
        """
        order !full +cancel,close,reopen; refund@order !min +create ~amount,line_items,reason,notify
        product !full +publish,unpublish,duplicate ~title,body_html,vendor,product_type
        product_variant@product !crud; customer !full
        fulfillment@order !min +create,cancel ~tracking_number,tracking_company
        discount_code@price_rule !crud ~code; price_rule !crud; collection !crud
        draft_order !crud +complete; gift_card !std +disable; abandoned_checkout !ro; location !ro
        inventory_item !ro +update; metafield !crud; theme !crud +publish; webhook !crud; page !crud
        blog_article !crud
    """,
        """
        shopify_adjust_inventory|Adjusts the available quantity of an inventory item at a location by a relative amount (e.g. +20 or -3).|inventory_item_id;location_id;delta
        shopify_set_inventory|Sets the available quantity of an inventory item at a location to an absolute number.|inventory_item_id;location_id;quantity
        shopify_calculate_refund|Calculates the refundable amounts for an order without creating a refund.|order_id;line_items
    """,
    ),
    (
        "weather",
        "Weather",
        "kebab",
        """
        station !ro; observation@station !min; saved_location !crud
    """,
        """
        get-forecast|Get the daily weather forecast (high/low, chance of precipitation, conditions) for a location for the next 7 days.|location;days;units
        get-hourly-forecast|Get an hour-by-hour forecast for the next 48 hours.|location;hours
        get-current-conditions|Get current observed weather (temperature, humidity, wind, conditions) for a location.|location;units
        get-alerts|Get active severe weather alerts and warnings (storms, floods, heat) issued for a location or area.|location
        get-historical-weather|Get observed weather for a location on a past date.|location;date
        get-air-quality|Get the air quality index and pollutant levels for a location.|location
        get-uv-index|Get the UV index forecast for a location.|location
        get-pollen-forecast|Get pollen levels by type for the coming days.|location
        get-marine-forecast|Get wave height, swell and sea temperature for a coastal location.|location
        get-sunrise-sunset|Get sunrise, sunset and daylight length for a location and date.|location;date
        get-precipitation-radar|Get a radar image URL of current precipitation around a location.|location;zoom
        get-minute-precipitation|Get a minute-by-minute rain forecast for the next hour.|location
        get-climate-normals|Get long-term average temperature and rainfall for each month.|location
        get-tide-predictions|Get high and low tide times for a coastal station.|station_id;date
    """,
    ),
    (
        "maps",
        "Maps",
        "snake",
        """
        saved_place !crud; custom_map !crud
    """,
        """
        geocode|Converts an address or place name into latitude/longitude coordinates.|address
        reverse_geocode|Converts latitude/longitude coordinates into the nearest street address.|lat;lng
        get_directions|Returns a route with turn-by-turn directions between an origin and a destination by car, foot, bike or transit.|origin;destination;mode;departure_time
        get_distance_matrix|Returns travel distance and time for every pair of several origins and destinations.|origins;destinations;mode
        search_places|Text search for places, e.g. 'pizza in Chicago' or 'Louvre'.|query;location
        search_nearby|Finds places of a given type within a radius of a coordinate.|lat;lng;radius;type
        get_place_details|Returns details of a place: address, opening hours, phone number, rating and reviews.|place_id
        autocomplete_place|Returns place suggestions as the user types.|input;location
        get_timezone|Returns the time zone and current UTC offset for a coordinate.|lat;lng
        get_elevation|Returns the elevation above sea level of a coordinate.|lat;lng
        snap_to_roads|Snaps a GPS trace to the most likely roads travelled.|path
        get_static_map|Renders a static map image URL centred on a location with optional markers.|center;zoom;markers
        validate_address|Validates and standardizes a postal address.|address
        get_isochrone|Returns the area reachable from a point within a given travel time.|lat;lng;minutes;mode
    """,
    ),
    (
        "snyk",
        "Snyk",
        "camel",
        """
        project !std; organization !crud; target !ro +delete; license_policy !crud
        security_policy !crud; integration !crud; service_account !crud; webhook !crud
        container_image !ro
    """,
        """
        listFindings|Lists the vulnerability and license findings detected in a project, with severity and fix availability.|project_id;severity
        getFinding|Returns the details of one vulnerability finding: affected package, CVE, paths and remediation.|project_id;finding_id
        ignoreFinding|Ignores a vulnerability finding in a project for a period or permanently, with a reason; it no longer fails tests.|project_id;finding_id;reason;expires
        testProject|Runs a new security scan (test) on a project and returns the vulnerabilities found.|project_id
        createFixPullRequest|Opens a pull request in the source repository that upgrades dependencies to fix vulnerabilities.|project_id;finding_ids
        exportSbom|Generates a software bill of materials (SBOM) for a project in CycloneDX or SPDX format.|project_id;format
        getVulnerabilityReport|Returns counts of open vulnerabilities by severity across the organization over time.|org_id;from;to
        importProject|Imports a repository from an integration (GitHub, GitLab, ...) so it is monitored.|integration_id;target
    """,
    ),
    (
        "testrail",
        "TestRail",
        "snake",
        """
        test_case@section !full %create=add; section@suite !crud %create=add
        suite@project !crud %create=add; project !crud %create=add
        test_run@project !std +close %create=add; test_plan@project !std +close %create=add
        test_result@test_run !min +add ~status,comment,elapsed,defects
        bug@project !full +close,reopen,assign %create=add ~title,steps_to_reproduce,severity,test_id
        milestone@project !crud %create=add; configuration !crud %create=add
        shared_step@project !crud %create=add; test@test_run !ro; user !ro; report !min
    """,
        """
        run_report|Runs a saved report template and returns the rendered report.|report_id
    """,
    ),
    (
        "sentry",
        "Sentry",
        "snake",
        """
        issue@project !std +resolve,assign,mergedup,bookmark -create ~status,assigned_to
        event@issue !ro; project !std ~name,platform,team; release@project !std +deploy
        alert_rule@project !crud +enable,disable; metric_alert_rule@project !crud; team !crud
        member !crud +invite; client_key@project !crud +rotate; replay@project !ro +delete
        cron_monitor@project !crud +mute,unmute; dashboard !crud; integration !min +install,uninstall
        ownership_rule@project !crud; source_map@release !min +upload,delete
    """,
        """
        ignore_issue|Ignores (archives) an error issue until it happens again N times or for a period.|issue_id;until_escalating;ignore_count
        get_issue_latest_event|Returns the most recent event (stack trace, tags, breadcrumbs) of an error issue.|issue_id
        get_project_stats|Returns error counts over time for a project.|project_slug;stat;since
    """,
    ),
    (
        "quickbooks",
        "QuickBooks Online",
        "camel",
        """
        invoice !std +send,void ~customer_ref,line_items,due_date
        bill !std +void ~vendor_ref,line_items,due_date; bill_payment !crud; vendor !std +deactivate
        customer !std +deactivate; expense !std ~account_ref,amount,payee,txn_date; journal_entry !std
        account !std +deactivate; estimate !std +send; purchase_order !std +send; payment !std +void
        sales_receipt !std +void; credit_memo !std; deposit !crud; transfer !crud; tax_code !ro
        class !crud; item !std +deactivate; employee !crud; time_activity !crud
    """,
        """
        getProfitAndLossReport|Returns the profit and loss (income statement) report for a period.|start_date;end_date;accounting_method
        getBalanceSheetReport|Returns the balance sheet as of a date.|as_of
        getCashFlowReport|Returns the statement of cash flows for a period.|start_date;end_date
        getAgedReceivablesReport|Returns unpaid customer invoices grouped by how overdue they are.|as_of
        getAgedPayablesReport|Returns unpaid vendor bills grouped by how overdue they are.|as_of
        getCompanyInfo|Returns the company's name, address and fiscal year settings.|
        reconcileAccount|Marks bank transactions as reconciled against a statement.|account_id;statement_date;ending_balance
    """,
    ),
    (
        "docusign",
        "DocuSign",
        "snake",
        """
        envelope !std +send,void,resend ~email_subject,documents,recipients,status
        envelope_recipient@envelope !crud; envelope_document@envelope !min +add,download,delete
        template !std +share; signing_group !crud; brand !crud; user !std +close; group !crud
        power_form !crud; bulk_send_list !crud; folder !min +move; connect_configuration !crud
    """,
        """
        create_signing_link|Creates an embedded signing URL so a recipient can sign an envelope inside your app.|envelope_id;recipient_email;return_url
        get_envelope_audit_events|Returns the certificate-of-completion audit events of an envelope.|envelope_id
        download_completed_documents|Downloads the signed, combined PDF of a completed envelope.|envelope_id
    """,
    ),
    (
        "zoom",
        "Zoom",
        "kebab",
        """
        meeting !std +end ~topic,start_time,duration,settings
        meeting_registrant@meeting !min +approve,reject,add; webinar !std +end
        webinar_panelist@webinar !min +add,remove; cloud_recording !ro +delete,download,restore,share
        user !std +activate,deactivate ~email,first_name,last_name,type; zoom_room !std
        meeting_poll@meeting !crud; meeting_template !min; phone_user !ro; phone_call_log !ro
        group !crud; tracking_field !crud; im_channel !crud
    """,
        """
        get-meeting-participants|Lists the people who joined a past meeting, with join and leave times.|meeting_id
        get-meeting-invitation|Returns the invitation text (join link, dial-in numbers) of a meeting.|meeting_id
        get-daily-usage-report|Returns daily counts of meetings, participants and minutes.|year;month
    """,
    ),
    (
        "figma",
        "Figma",
        "camel",
        """
        file !ro; file_comment@file !crud +resolve; file_version@file !min; component !ro
        component_set !ro; style !ro; project !min; team_project@team !min; variable@file !crud
        dev_resource@file !crud; webhook !crud; library_analytics !min
    """,
        """
        exportImages|Renders frames or nodes of a Figma file as PNG, JPG, SVG or PDF images.|file_key;node_ids;format;scale
        getFileNodes|Returns the document tree of specific nodes in a Figma file.|file_key;node_ids
        getImageFills|Returns download URLs for all images used as fills in a file.|file_key
        getMe|Returns the authenticated Figma user.|
    """,
    ),
    (
        "homeassistant",
        "Home Assistant",
        "snake",
        """
        entity !ro; automation !crud +trigger,enable,disable; scene !crud +activate; script !crud +run
        area !crud; device !ro +update; zone !crud; helper !crud; dashboard !crud
        blueprint !min +import
    """,
        """
        light_turn_on|Turns on a light, optionally setting brightness and colour.|entity_id;brightness;color
        light_turn_off|Turns off a light.|entity_id
        switch_toggle|Toggles a smart switch or plug on/off.|entity_id
        climate_set_temperature|Sets the target temperature of a thermostat.|entity_id;temperature
        lock_lock|Locks a smart door lock.|entity_id
        lock_unlock|Unlocks a smart door lock.|entity_id
        cover_open|Opens a cover such as a garage door or blinds.|entity_id
        cover_close|Closes a cover such as a garage door or blinds.|entity_id
        media_player_play|Starts playback on a media player.|entity_id;media_content_id
        vacuum_start|Starts a robot vacuum cleaning run.|entity_id
        get_entity_history|Returns the state history of an entity over a time window.|entity_id;start;end
    """,
    ),
    (
        "terraform",
        "Terraform Cloud",
        "resfirst",
        """
        workspace !std +lock,unlock ~name,terraform_version,working_directory,auto_apply
        run@workspace !ro +create,apply,cancel,discard; variable@workspace !crud
        variable_set !crud +apply; state_version@workspace !ro +rollback; policy_set !crud
        policy !crud; module !std +publish; provider !min +publish; team !crud
        team_access@workspace !crud; agent_pool !crud; ssh_key !crud
        notification_configuration@workspace !crud +test; project !crud; oauth_client !crud
    """,
        """
        run_plan_get|Returns the plan output (resources to add, change, destroy) of a run.|run_id
        run_apply_log_get|Returns the log of the apply phase of a run.|run_id
        workspace_destroy_run_create|Queues a destroy run that deletes every resource managed by a workspace.|workspace_id;message
    """,
    ),
    (
        "contentful",
        "Contentful",
        "kebab",
        """
        entry@space !std +publish,unpublish,archive,unarchive ~content_type,fields,locale
        asset@space !std +publish,unpublish,archive,unarchive,upload
        content_type@space !crud +publish,unpublish; space !crud; environment@space !crud +clone
        locale@space !crud; webhook@space !crud; role@space !crud; api_key@space !crud; tag@space !crud
        scheduled_action@space !crud +cancel; release@space !crud +publish; comment@entry !crud
        task@entry !crud +complete
    """,
        """
        get-entry-references|Returns all entries and assets linked from an entry.|entry_id;depth
        get-entry-snapshots|Lists the published snapshots (versions) of an entry.|entry_id
    """,
    ),
    (
        "dockerhub",
        "Docker Hub",
        "snake",
        """
        repository !std ~namespace,name,description,is_private; tag@repository !ro +delete
        webhook@repository !crud; access_token !crud +revoke; organization !min
        team@organization !crud; team_member@team !min +add,remove; autobuild@repository !crud +trigger
    """,
        """
        get_image_vulnerabilities|Returns the vulnerability scan results of an image tag.|repository;tag
        get_pull_stats|Returns the number of pulls of a repository over time.|repository
    """,
    ),
    (
        "redis",
        "Redis",
        "kebab",
        """
        acl_user !crud; module !min +install; stream !min +create,delete
        consumer_group@stream !min +create,delete
    """,
        """
        get-key|Returns the value stored at a key.|key
        set-key|Sets a key to a value, optionally with an expiry in seconds.|key;value;ex
        delete-keys|Deletes one or more keys.|keys
        expire-key|Sets a time-to-live on a key so it is removed automatically.|key;seconds
        scan-keys|Iterates over keys matching a glob pattern.|pattern;count
        get-ttl|Returns the remaining time to live of a key.|key
        increment-key|Increments the integer value of a key.|key;by
        hash-get-all|Returns all fields and values of a hash.|key
        hash-set|Sets fields in a hash.|key;fields
        list-push|Pushes values onto a list.|key;values;left
        list-range|Returns a range of elements from a list.|key;start;stop
        publish-message|Publishes a message to a pub/sub channel.|channel;message
        flush-database|Removes all keys from the current database.|async
        get-info|Returns server information and statistics (memory, clients, keyspace).|section
        get-slowlog|Returns the slow query log.|count
        get-memory-usage|Returns how many bytes a key and its value use.|key
    """,
    ),
]
