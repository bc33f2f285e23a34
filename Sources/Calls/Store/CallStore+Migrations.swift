import GRDB

extension CallStore {
    /// Versioned schema. Never edit a registered migration: add the next one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        // v1: the call queue and its history.
        migrator.registerMigration("v1-calls") { db in
            try db.create(table: "calls") { t in
                t.primaryKey("outbound_id", .text)
                t.column("call_id", .text)
                t.column("direction", .text).notNull().defaults(to: "outbound")
                t.column("caller_number", .text).notNull()
                t.column("callee_number", .text).notNull()
                t.column("caller_display_name", .text).notNull().defaults(to: "")
                t.column("purpose", .text).notNull()
                t.column("questions", .text).notNull()
                t.column("max_duration", .integer).notNull()
                t.column("priority", .integer).notNull().defaults(to: 5)
                t.column("scheduled_at", .datetime)
                t.column("retry_on_no_answer", .boolean).notNull().defaults(to: true)
                t.column("max_retries", .integer).notNull().defaults(to: 2)
                t.column("retry_interval", .integer).notNull().defaults(to: 300)
                t.column("state", .text).notNull()
                t.column("created_at", .datetime).notNull()
                t.column("started_at", .datetime)
                t.column("answered_at", .datetime)
                t.column("completed_at", .datetime)
                t.column("next_attempt_at", .datetime)
                t.column("attempt_count", .integer).notNull().defaults(to: 0)
                t.column("failure_reason", .text)
                t.column("metadata", .text)
                t.column("requested_by", .text).notNull().defaults(to: "operator")
            }
            try db.create(index: "calls_state", on: "calls", columns: ["state", "priority", "created_at"])
            try db.create(table: "attempts") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("outbound_id", .text).notNull().indexed().references("calls", onDelete: .cascade)
                t.column("attempt_number", .integer).notNull()
                t.column("sip_call_id", .text)
                t.column("started_at", .datetime).notNull()
                t.column("ended_at", .datetime)
                t.column("outcome", .text)
                t.column("failure_reason", .text)
            }
            try db.create(table: "events") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("outbound_id", .text).notNull().indexed()
                t.column("type", .text).notNull()
                t.column("payload", .text).notNull()
                t.column("created_at", .datetime).notNull()
            }
        }

        // v2: what a call produced — result columns, transcript, answers, recordings.
        migrator.registerMigration("v2-results") { db in
            try db.alter(table: "calls") { t in
                t.add(column: "summary", .text)
                t.add(column: "task_completed", .boolean)
                t.add(column: "duration_seconds", .integer)
                t.add(column: "ai_turns", .integer)
                t.add(column: "customer_turns", .integer)
            }
            try db.create(table: "transcript_entries") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("outbound_id", .text).notNull().indexed().references("calls", onDelete: .cascade)
                t.column("seconds", .double).notNull()
                t.column("speaker", .text).notNull()
                t.column("text", .text).notNull()
                t.column("latency_ms", .integer)
                t.column("created_at", .datetime).notNull()
            }
            try db.create(table: "answers") { t in
                t.column("outbound_id", .text).notNull().references("calls", onDelete: .cascade)
                t.column("question_id", .text).notNull()
                t.column("question_text", .text).notNull()
                t.column("status", .text).notNull()
                t.column("answer_text", .text)
                t.column("answer_summary", .text)
                t.column("confidence", .double).notNull().defaults(to: 0)
                t.primaryKey(["outbound_id", "question_id"])
            }
            try db.create(table: "recordings") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("outbound_id", .text).notNull().indexed().references("calls", onDelete: .cascade)
                t.column("path", .text).notNull()
                t.column("format", .text).notNull()
                t.column("bytes", .integer).notNull().defaults(to: 0)
                t.column("duration_seconds", .double)
                t.column("created_at", .datetime).notNull()
            }
        }

        // v3: look calls up by the provider's id (Twilio status callbacks) and by callee (one live call each).
        migrator.registerMigration("v3-lookups") { db in
            try db.create(index: "calls_call_id", on: "calls", columns: ["call_id"])
            try db.create(index: "calls_callee", on: "calls", columns: ["callee_number", "state"])
        }
        // v4: what each call's media path did (stage meters, tones, turns, usage, cost) as JSON,
        // and the figures that totals sum as columns.
        migrator.registerMigration("v4-call-reports") { db in
            try db.create(table: "call_reports") { t in
                t.column("outbound_id", .text).primaryKey().references("calls", onDelete: .cascade)
                t.column("report", .text).notNull()
                t.column("estimated_cost", .double).notNull()
                t.column("currency", .text).notNull()
                t.column("turns", .integer).notNull()
                t.column("barge_ins", .integer).notNull()
                t.column("first_audio_ms_total", .integer).notNull()
                t.column("created_at", .datetime).notNull()
            }
        }
        // v5: the outcome of a call's latest attempt, which a retry's `queued` state would hide.
        migrator.registerMigration("v5-last-outcome") { db in
            try db.alter(table: "calls") { t in t.add(column: "last_outcome", .text) }
            try db.execute(sql: "UPDATE calls SET last_outcome = state WHERE state IN ('completed', 'no_answer', 'busy', 'rejected', 'failed', 'cancelled')")
        }
        // v6: the do-not-call list (seed 000 §11), numbers normalized as calls store them.
        migrator.registerMigration("v6-do-not-call") { db in
            try db.create(table: "do_not_call") { t in
                t.primaryKey("number", .text)
                t.column("reason", .text).notNull().defaults(to: "")
                t.column("added_by", .text).notNull().defaults(to: "operator")
                t.column("added_at", .datetime).notNull()
            }
        }
        // v7: call templates, every version kept; each call names the template version it ran
        // with and keeps what it said first and last.
        migrator.registerMigration("v7-templates") { db in
            try db.create(table: "templates") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("version", .integer).notNull()
                t.column("updated_at", .datetime).notNull()
                t.column("deleted_at", .datetime)
            }
            try db.execute(sql: "CREATE UNIQUE INDEX templates_live_name ON templates(name) WHERE deleted_at IS NULL")
            try db.create(table: "template_versions") { t in
                t.column("template_id", .text).notNull().references("templates", onDelete: .cascade)
                t.column("version", .integer).notNull()
                t.column("body", .text).notNull()
                t.column("created_at", .datetime).notNull()
                t.primaryKey(["template_id", "version"])
            }
            try db.alter(table: "calls") { t in
                t.add(column: "template_id", .text)
                t.add(column: "template_version", .integer)
                t.add(column: "greeting", .text)
                t.add(column: "closing", .text)
                t.add(column: "voice", .text)
            }
        }
        // v8: campaigns, their contacts (each becomes a call in the transaction that claims it)
        // and the rows their uploads skipped; a call names its campaign and the outcomes it retries.
        migrator.registerMigration("v8-campaigns") { db in
            try db.create(table: "campaigns") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("template_id", .text).notNull()
                t.column("template_version", .integer).notNull()
                t.column("caller_number", .text).notNull()
                t.column("caller_display_name", .text).notNull()
                t.column("state", .text).notNull()
                t.column("window", .text)
                t.column("calls_per_minute", .integer).notNull()
                t.column("max_concurrent_calls", .integer).notNull()
                t.column("retry", .text).notNull()
                t.column("contacts", .integer).notNull().defaults(to: 0)
                t.column("skipped", .integer).notNull().defaults(to: 0)
                t.column("columns", .text).notNull().defaults(to: "[]")
                t.column("created_at", .datetime).notNull()
                t.column("started_at", .datetime)
                t.column("ended_at", .datetime)
            }
            try db.create(table: "campaign_contacts") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("campaign_id", .text).notNull().references("campaigns", onDelete: .cascade)
                t.column("line", .integer).notNull()
                t.column("number", .text).notNull()
                t.column("variables", .text).notNull()
                t.column("outbound_id", .text)
                t.column("skip_reason", .text)
                t.uniqueKey(["campaign_id", "number"])
            }
            try db.create(index: "campaign_contacts_waiting", on: "campaign_contacts", columns: ["campaign_id", "outbound_id", "id"])
            try db.create(table: "campaign_problems") { t in
                t.column("campaign_id", .text).notNull().indexed().references("campaigns", onDelete: .cascade)
                t.column("line", .integer).notNull()
                t.column("column_name", .text).notNull()
                t.column("value", .text).notNull()
                t.column("reason", .text).notNull()
            }
            try db.alter(table: "calls") { t in
                t.add(column: "campaign_id", .text)
                t.add(column: "retry_on", .text)
            }
            try db.create(index: "calls_campaign", on: "calls", columns: ["campaign_id", "state"])
        }
        // v9: a call may be handed to an external media-stream bot.
        migrator.registerMigration("v9-bot-url") { db in
            try db.alter(table: "calls") { t in t.add(column: "bot_url", .text) }
        }
        // v10: who answered (the carrier's answering-machine detection).
        migrator.registerMigration("v10-answered-by") { db in
            try db.alter(table: "calls") { t in t.add(column: "answered_by", .text) }
        }
        // v11: signed webhooks. Endpoints, and an outbox of deliveries written in the transaction
        // of the state change each reports; every attempt is kept for the operator to see.
        migrator.registerMigration("v11-webhooks") { db in
            try db.create(table: "webhook_endpoints") { t in
                t.primaryKey("id", .text)
                t.column("url", .text).notNull()
                t.column("secret", .text).notNull()
                t.column("events", .text).notNull()         // JSON array; empty: every event
                t.column("description", .text).notNull().defaults(to: "")
                t.column("enabled", .boolean).notNull().defaults(to: true)
                t.column("from_config", .boolean).notNull().defaults(to: false)
                t.column("disabled_reason", .text)
                t.column("created_at", .datetime).notNull()
            }
            try db.create(table: "webhook_deliveries") { t in
                t.primaryKey("id", .text)                   // the webhook-id, the same on every attempt
                t.column("endpoint_id", .text).notNull().references("webhook_endpoints", onDelete: .cascade)
                t.column("event_type", .text).notNull()
                t.column("outbound_id", .text)
                t.column("campaign_id", .text)
                t.column("payload", .text).notNull()
                t.column("state", .text).notNull()          // pending, delivered, failed
                t.column("attempt_count", .integer).notNull().defaults(to: 0)
                t.column("next_attempt_at", .datetime)
                t.column("last_status", .integer)
                t.column("last_error", .text)
                t.column("created_at", .datetime).notNull()
                t.column("delivered_at", .datetime)
            }
            try db.create(index: "webhook_deliveries_due", on: "webhook_deliveries", columns: ["state", "next_attempt_at"])
            try db.create(index: "webhook_deliveries_endpoint", on: "webhook_deliveries", columns: ["endpoint_id", "created_at"])
            try db.create(index: "webhook_deliveries_call", on: "webhook_deliveries", columns: ["outbound_id"])
            try db.create(table: "webhook_attempts") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("delivery_id", .text).notNull().indexed().references("webhook_deliveries", onDelete: .cascade)
                t.column("attempted_at", .datetime).notNull()
                t.column("status", .integer)
                t.column("error", .text)
                t.column("duration_ms", .integer).notNull()
            }
        }
        // v12: answering-machine detection on SIP calls: the action asked for, the message to
        // leave, and when the verdict (answered_by) was made.
        migrator.registerMigration("v12-machine-detection") { db in
            try db.alter(table: "calls") { t in
                t.add(column: "machine_detection", .text)
                t.add(column: "voicemail_message", .text)
                t.add(column: "answered_by_ms", .integer)
            }
        }
        // v13: transfer to a person: where the call may be handed (per call or template), where
        // it was, and how that went.
        migrator.registerMigration("v13-transfer") { db in
            try db.alter(table: "calls") { t in
                t.add(column: "transfer_to", .text)
                t.add(column: "transferred_to", .text)
                t.add(column: "transfer_outcome", .text)
            }
        }
        // v14: the storage keys that have sealed data here, so a server started without one of
        // them (or with a wrong one) refuses to start instead of failing call by call.
        migrator.registerMigration("v14-storage-keys") { db in
            try db.create(table: "storage_keys") { t in
                t.primaryKey("key_id", .text)
                t.column("first_used_at", .datetime).notNull()
            }
        }
        // v15: several nodes on one database. Each renews its lease in `nodes`; a queued call
        // claimed by a node, and every call it runs, carries its id.
        migrator.registerMigration("v15-nodes") { db in
            try db.create(table: "nodes") { t in
                t.primaryKey("id", .text)
                t.column("started_at", .datetime).notNull()
                t.column("heartbeat_at", .datetime).notNull()
            }
            try db.alter(table: "calls") { t in t.add(column: "node_id", .text) }
            try db.create(index: "calls_state_node", on: "calls", columns: ["state", "node_id"])
            // Call creations per API identity in the last minute, counted over every node.
            try db.create(table: "api_admissions") { t in
                t.column("identity", .text).notNull()   // a hash of the token, never the token
                t.column("admitted_at", .datetime).notNull()
            }
            try db.create(index: "api_admissions_identity", on: "api_admissions", columns: ["identity", "admitted_at"])
        }
        return migrator
    }
}
