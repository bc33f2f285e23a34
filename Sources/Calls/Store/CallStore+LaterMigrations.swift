extension CallStore {
    /// v8 onwards of `migrator` (campaigns, webhooks, machine detection, transfer, storage keys,
    /// nodes), kept apart only to keep each file readable.
    static let laterMigrations: [SQLMigration] = [
        // v8: campaigns, their contacts (each becomes a call in the transaction that claims it)
        // and the rows their uploads skipped; a call names its campaign and the outcomes it retries.
        // `window` is quoted everywhere: PostgreSQL reserves the word.
        SQLMigration("v8-campaigns") { d in [
            """
            CREATE TABLE campaigns (
                id TEXT NOT NULL PRIMARY KEY,
                name TEXT NOT NULL,
                template_id TEXT NOT NULL,
                template_version \(d.integerType) NOT NULL,
                caller_number TEXT NOT NULL,
                caller_display_name TEXT NOT NULL,
                state TEXT NOT NULL,
                "window" TEXT,
                calls_per_minute \(d.integerType) NOT NULL,
                max_concurrent_calls \(d.integerType) NOT NULL,
                retry TEXT NOT NULL,
                contacts \(d.integerType) NOT NULL DEFAULT 0,
                skipped \(d.integerType) NOT NULL DEFAULT 0,
                columns TEXT NOT NULL DEFAULT '[]',
                created_at \(d.dateType) NOT NULL,
                started_at \(d.dateType),
                ended_at \(d.dateType))
            """,
            """
            CREATE TABLE campaign_contacts (
                \(d.autoIncrementedID),
                campaign_id TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
                line \(d.integerType) NOT NULL,
                number TEXT NOT NULL,
                variables TEXT NOT NULL,
                outbound_id TEXT,
                skip_reason TEXT,
                UNIQUE (campaign_id, number))
            """,
            "CREATE INDEX campaign_contacts_waiting ON campaign_contacts(campaign_id, outbound_id, id)",
            """
            CREATE TABLE campaign_problems (
                campaign_id TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
                line \(d.integerType) NOT NULL,
                column_name TEXT NOT NULL,
                value TEXT NOT NULL,
                reason TEXT NOT NULL)
            """,
            "CREATE INDEX index_campaign_problems_on_campaign_id ON campaign_problems(campaign_id)",
            "ALTER TABLE calls ADD COLUMN campaign_id TEXT",
            "ALTER TABLE calls ADD COLUMN retry_on TEXT",
            "CREATE INDEX calls_campaign ON calls(campaign_id, state)",
        ] },

        // v9: a call may be handed to an external media-stream bot.
        SQLMigration("v9-bot-url") { _ in ["ALTER TABLE calls ADD COLUMN bot_url TEXT"] },

        // v10: who answered (the carrier's answering-machine detection).
        SQLMigration("v10-answered-by") { _ in ["ALTER TABLE calls ADD COLUMN answered_by TEXT"] },

        // v11: signed webhooks. Endpoints, and an outbox of deliveries written in the transaction
        // of the state change each reports; every attempt is kept for the operator to see.
        SQLMigration("v11-webhooks") { d in [
            """
            CREATE TABLE webhook_endpoints (
                id TEXT NOT NULL PRIMARY KEY,
                url TEXT NOT NULL,
                secret TEXT NOT NULL,
                events TEXT NOT NULL,
                description TEXT NOT NULL DEFAULT '',
                enabled \(d.boolType) NOT NULL DEFAULT TRUE,
                from_config \(d.boolType) NOT NULL DEFAULT FALSE,
                disabled_reason TEXT,
                created_at \(d.dateType) NOT NULL)
            """,   // events: a JSON array; empty: every event
            """
            CREATE TABLE webhook_deliveries (
                id TEXT NOT NULL PRIMARY KEY,
                endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
                event_type TEXT NOT NULL,
                outbound_id TEXT,
                campaign_id TEXT,
                payload TEXT NOT NULL,
                state TEXT NOT NULL,
                attempt_count \(d.integerType) NOT NULL DEFAULT 0,
                next_attempt_at \(d.dateType),
                last_status \(d.integerType),
                last_error TEXT,
                created_at \(d.dateType) NOT NULL,
                delivered_at \(d.dateType))
            """,   // id: the webhook-id, the same on every attempt; state: pending, delivered, failed
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at)",
            "CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, created_at)",
            "CREATE INDEX webhook_deliveries_call ON webhook_deliveries(outbound_id)",
            """
            CREATE TABLE webhook_attempts (
                \(d.autoIncrementedID),
                delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
                attempted_at \(d.dateType) NOT NULL,
                status \(d.integerType),
                error TEXT,
                duration_ms \(d.integerType) NOT NULL)
            """,
            "CREATE INDEX index_webhook_attempts_on_delivery_id ON webhook_attempts(delivery_id)",
        ] },

        // v12: answering-machine detection on SIP calls: the action asked for, the message to
        // leave, and when the verdict (answered_by) was made.
        SQLMigration("v12-machine-detection") { d in [
            "ALTER TABLE calls ADD COLUMN machine_detection TEXT",
            "ALTER TABLE calls ADD COLUMN voicemail_message TEXT",
            "ALTER TABLE calls ADD COLUMN answered_by_ms \(d.integerType)",
        ] },

        // v13: transfer to a person: where the call may be handed (per call or template), where
        // it was, and how that went.
        SQLMigration("v13-transfer") { _ in [
            "ALTER TABLE calls ADD COLUMN transfer_to TEXT",
            "ALTER TABLE calls ADD COLUMN transferred_to TEXT",
            "ALTER TABLE calls ADD COLUMN transfer_outcome TEXT",
        ] },

        // v14: the storage keys that have sealed data here, so a server started without one of
        // them (or with a wrong one) refuses to start instead of failing call by call.
        SQLMigration("v14-storage-keys") { d in [
            "CREATE TABLE storage_keys (key_id TEXT NOT NULL PRIMARY KEY, first_used_at \(d.dateType) NOT NULL)",
        ] },

        // v15: several nodes on one database. Each renews its lease in `nodes`; a queued call
        // claimed by a node, and every call it runs, carries its id. `api_admissions`: call
        // creations per API identity (a hash of the token, never the token) in the last minute,
        // counted over every node.
        SQLMigration("v15-nodes") { d in [
            "CREATE TABLE nodes (id TEXT NOT NULL PRIMARY KEY, started_at \(d.dateType) NOT NULL, heartbeat_at \(d.dateType) NOT NULL)",
            "ALTER TABLE calls ADD COLUMN node_id TEXT",
            "CREATE INDEX calls_state_node ON calls(state, node_id)",
            "CREATE TABLE api_admissions (identity TEXT NOT NULL, admitted_at \(d.dateType) NOT NULL)",
            "CREATE INDEX api_admissions_identity ON api_admissions(identity, admitted_at)",
        ] },

        // v16: numbers compared in E.164 (`NumberPlan`): the do-not-call list and the one open call
        // per number match every spelling of a number. Filled for existing rows when the store opens.
        SQLMigration("v16-canonical-numbers") { _ in [
            "ALTER TABLE calls ADD COLUMN callee_canonical TEXT",
            "CREATE INDEX calls_callee_canonical ON calls(callee_canonical)",
            "ALTER TABLE do_not_call ADD COLUMN canonical TEXT",
            "CREATE INDEX do_not_call_canonical ON do_not_call(canonical)",
            "ALTER TABLE campaign_contacts ADD COLUMN canonical TEXT",
        ] },

        // v17: the operator's tools a call's agent may call, and the MCP servers whose tools it may
        // (JSON declarations; secrets only by name).
        SQLMigration("v17-tools") { _ in [
            "ALTER TABLE calls ADD COLUMN tools TEXT",
            "ALTER TABLE calls ADD COLUMN mcp_servers TEXT",
        ] },

        // v18: the knowledge base. A collection is the documents uploaded under its name; a
        // document is its chunks. The index holds each chunk's search terms (`KnowledgeTerms`):
        // an FTS5 table on SQLite (BM25), a weighted tsvector with a GIN index on PostgreSQL.
        // `embedding`: the chunk's sentence embedding (384 float32, see `E5Embedder`), when one was made.
        // `calls.knowledge`: the collections a call's agent searches (JSON list of names).
        SQLMigration("v18-knowledge") { d in [
            """
            CREATE TABLE knowledge_documents (collection TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
                bytes \(d.integerType) NOT NULL, chunks \(d.integerType) NOT NULL, sha256 TEXT NOT NULL, uploaded_at \(d.dateType) NOT NULL,
                PRIMARY KEY (collection, name))
            """,
            """
            CREATE TABLE knowledge_chunks (\(d.autoIncrementedID), collection TEXT NOT NULL, document TEXT NOT NULL,
                ordinal \(d.integerType) NOT NULL, line \(d.integerType) NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
                faq \(d.boolType) NOT NULL, title_terms TEXT NOT NULL, body_terms TEXT NOT NULL, embedding \(d.blobType),
                \(d == .postgres ? "search TSVECTOR NOT NULL," : "")
                FOREIGN KEY (collection, document) REFERENCES knowledge_documents(collection, name) ON DELETE CASCADE)
            """,
            "CREATE INDEX knowledge_chunks_document ON knowledge_chunks(collection, document)",
            d == .postgres ? "CREATE INDEX knowledge_chunks_search ON knowledge_chunks USING GIN (search)"
                : "CREATE VIRTUAL TABLE knowledge_index USING fts5(title_terms, body_terms, tokenize = 'unicode61 remove_diacritics 0')",
            "ALTER TABLE calls ADD COLUMN knowledge TEXT",
            // Tools marked `on_end`: one row per tool and ended call, written with the call's end;
            // delivered with the webhooks' retry rules (`AfterCallToolDispatcher`).
            """
            CREATE TABLE after_call_tools (id TEXT NOT NULL PRIMARY KEY, outbound_id TEXT NOT NULL, tool_name TEXT NOT NULL, tool TEXT NOT NULL,
                payload TEXT NOT NULL, state TEXT NOT NULL, attempt_count \(d.integerType) NOT NULL DEFAULT 0, next_attempt_at \(d.dateType),
                last_status \(d.integerType), last_error TEXT, created_at \(d.dateType) NOT NULL, delivered_at \(d.dateType))
            """,
            "CREATE INDEX after_call_tools_due ON after_call_tools(state, next_attempt_at)",
            "CREATE INDEX after_call_tools_call ON after_call_tools(outbound_id)",
        ] },
        // v19: a flow's call ends with an outcome (its end step's label; plain, for statistics)
        // and a flow result — the path taken and the fields gathered (JSON, sealed: they are answers).
        // A completed call whose template asks for an analysis gets a row in `call_analyses`, the
        // outbox the analysis runs from (an LLM request may fail and be retried); the analysis
        // itself is `calls.analysis` (JSON, sealed).
        SQLMigration("v19-flows-and-analysis") { d in [
            "ALTER TABLE calls ADD COLUMN outcome TEXT",
            "ALTER TABLE calls ADD COLUMN flow_result TEXT",
            "ALTER TABLE calls ADD COLUMN analysis TEXT",
            """
            CREATE TABLE call_analyses (outbound_id TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL, attempt_count \(d.integerType) NOT NULL DEFAULT 0,
                next_attempt_at \(d.dateType), last_status \(d.integerType), last_error TEXT, created_at \(d.dateType) NOT NULL, delivered_at \(d.dateType))
            """,
            "CREATE INDEX call_analyses_due ON call_analyses(state, next_attempt_at)",
        ] },

        // v20: a call's language, so one server holds English and Korean calls.
        SQLMigration("v20-call-language") { _ in ["ALTER TABLE calls ADD COLUMN language TEXT"] },

        // v21: the questions callers asked that the knowledge base could not answer, kept with their
        // call (`question` sealed, like the transcript it came from) until the operator answers or
        // dismisses them; `collections` is the call's list, for the answer's default collection.
        SQLMigration("v21-knowledge-questions") { d in [
            """
            CREATE TABLE knowledge_questions (\(d.autoIncrementedID),
                outbound_id TEXT NOT NULL REFERENCES calls(outbound_id) ON DELETE CASCADE,
                campaign_id TEXT, collections TEXT NOT NULL, question TEXT NOT NULL,
                asked_at \(d.dateType) NOT NULL, resolved_at \(d.dateType), resolution TEXT)
            """,
            "CREATE INDEX knowledge_questions_open ON knowledge_questions(resolved_at, asked_at)",
            "CREATE INDEX knowledge_questions_call ON knowledge_questions(outbound_id)",
            "CREATE INDEX knowledge_questions_campaign ON knowledge_questions(campaign_id, resolved_at)",
        ] },

        // v22: noise suppression chosen per call (or by its template); NULL: `engine.noise_suppression`.
        SQLMigration("v22-noise-suppression") { d in ["ALTER TABLE calls ADD COLUMN noise_suppression \(d.boolType)"] },

        // v23: the trace a call's attempts are traced under (`telemetry.otlp_endpoint`).
        SQLMigration("v23-trace-parent") { _ in ["ALTER TABLE calls ADD COLUMN trace_parent TEXT"] },

        // v24: the languages a caller who switched language spoke, as a JSON list of codes.
        SQLMigration("v24-languages-spoken") { _ in ["ALTER TABLE calls ADD COLUMN languages_spoken TEXT"] },
    ]
}

extension CallStore {
    /// Rows from before schema v16 (or written by an older node) get their E.164 form; run when
    /// the store opens, in the migration's transaction, a batch at a time.
    static func fillCanonicalNumbers(_ numbers: NumberPlan, in sql: any SQLConnection) throws {
        while true {
            let rows = try sql.rows("SELECT outbound_id, callee_number FROM calls WHERE callee_canonical IS NULL LIMIT 1000")
            if rows.isEmpty { break }
            for row in rows {
                let id: String = try row.get("outbound_id"), number: String = try row.get("callee_number")
                try sql.execute("UPDATE calls SET callee_canonical = ? WHERE outbound_id = ?", numbers.storedKey(number), id)
            }
        }
        for row in try sql.rows("SELECT id, number FROM campaign_contacts WHERE canonical IS NULL") {
            let number: String = try row.get("number")
            try sql.execute("UPDATE campaign_contacts SET canonical = ? WHERE id = ?", numbers.storedKey(number), try row.get("id", as: Int64.self))
        }
        for number in try sql.column(String.self, "SELECT number FROM do_not_call WHERE canonical IS NULL") {
            try sql.execute("UPDATE do_not_call SET canonical = ? WHERE number = ?", numbers.storedKey(number), number)
        }
    }
}
