extension CallStore {
    /// Versioned schema, one list for SQLite and PostgreSQL: each migration's SQL names its types
    /// through the dialect (`DATETIME` / `TIMESTAMPTZ`, `INTEGER` / `BIGINT`, the numbered `id`).
    /// Never edit a listed migration: add the next one.
    static let migrator = SQLMigrator([
        // v1: the call queue and its history.
        SQLMigration("v1-calls") { d in [
            """
            CREATE TABLE calls (
                outbound_id TEXT NOT NULL PRIMARY KEY,
                call_id TEXT,
                direction TEXT NOT NULL DEFAULT 'outbound',
                caller_number TEXT NOT NULL,
                callee_number TEXT NOT NULL,
                caller_display_name TEXT NOT NULL DEFAULT '',
                purpose TEXT NOT NULL,
                questions TEXT NOT NULL,
                max_duration \(d.integerType) NOT NULL,
                priority \(d.integerType) NOT NULL DEFAULT 5,
                scheduled_at \(d.dateType),
                retry_on_no_answer \(d.boolType) NOT NULL DEFAULT TRUE,
                max_retries \(d.integerType) NOT NULL DEFAULT 2,
                retry_interval \(d.integerType) NOT NULL DEFAULT 300,
                state TEXT NOT NULL,
                created_at \(d.dateType) NOT NULL,
                started_at \(d.dateType),
                answered_at \(d.dateType),
                completed_at \(d.dateType),
                next_attempt_at \(d.dateType),
                attempt_count \(d.integerType) NOT NULL DEFAULT 0,
                failure_reason TEXT,
                metadata TEXT,
                requested_by TEXT NOT NULL DEFAULT 'operator')
            """,
            "CREATE INDEX calls_state ON calls(state, priority, created_at)",
            """
            CREATE TABLE attempts (
                \(d.autoIncrementedID),
                outbound_id TEXT NOT NULL REFERENCES calls(outbound_id) ON DELETE CASCADE,
                attempt_number \(d.integerType) NOT NULL,
                sip_call_id TEXT,
                started_at \(d.dateType) NOT NULL,
                ended_at \(d.dateType),
                outcome TEXT,
                failure_reason TEXT)
            """,
            "CREATE INDEX index_attempts_on_outbound_id ON attempts(outbound_id)",
            """
            CREATE TABLE events (
                \(d.autoIncrementedID),
                outbound_id TEXT NOT NULL,
                type TEXT NOT NULL,
                payload TEXT NOT NULL,
                created_at \(d.dateType) NOT NULL)
            """,
            "CREATE INDEX index_events_on_outbound_id ON events(outbound_id)",
        ] },

        // v2: what a call produced — result columns, transcript, answers, recordings.
        SQLMigration("v2-results") { d in [
            "ALTER TABLE calls ADD COLUMN summary TEXT",
            "ALTER TABLE calls ADD COLUMN task_completed \(d.boolType)",
            "ALTER TABLE calls ADD COLUMN duration_seconds \(d.integerType)",
            "ALTER TABLE calls ADD COLUMN ai_turns \(d.integerType)",
            "ALTER TABLE calls ADD COLUMN customer_turns \(d.integerType)",
            """
            CREATE TABLE transcript_entries (
                \(d.autoIncrementedID),
                outbound_id TEXT NOT NULL REFERENCES calls(outbound_id) ON DELETE CASCADE,
                seconds \(d.realType) NOT NULL,
                speaker TEXT NOT NULL,
                text TEXT NOT NULL,
                latency_ms \(d.integerType),
                created_at \(d.dateType) NOT NULL)
            """,
            "CREATE INDEX index_transcript_entries_on_outbound_id ON transcript_entries(outbound_id)",
            """
            CREATE TABLE answers (
                outbound_id TEXT NOT NULL REFERENCES calls(outbound_id) ON DELETE CASCADE,
                question_id TEXT NOT NULL,
                question_text TEXT NOT NULL,
                status TEXT NOT NULL,
                answer_text TEXT,
                answer_summary TEXT,
                confidence \(d.realType) NOT NULL DEFAULT 0,
                PRIMARY KEY (outbound_id, question_id))
            """,
            """
            CREATE TABLE recordings (
                \(d.autoIncrementedID),
                outbound_id TEXT NOT NULL REFERENCES calls(outbound_id) ON DELETE CASCADE,
                path TEXT NOT NULL,
                format TEXT NOT NULL,
                bytes \(d.integerType) NOT NULL DEFAULT 0,
                duration_seconds \(d.realType),
                created_at \(d.dateType) NOT NULL)
            """,
            "CREATE INDEX index_recordings_on_outbound_id ON recordings(outbound_id)",
        ] },

        // v3: look calls up by the provider's id (Twilio status callbacks) and by callee (one live call each).
        SQLMigration("v3-lookups") { _ in [
            "CREATE INDEX calls_call_id ON calls(call_id)",
            "CREATE INDEX calls_callee ON calls(callee_number, state)",
        ] },

        // v4: what each call's media path did (stage meters, tones, turns, usage, cost) as JSON,
        // and the figures that totals sum as columns.
        SQLMigration("v4-call-reports") { d in [
            """
            CREATE TABLE call_reports (
                outbound_id TEXT NOT NULL PRIMARY KEY REFERENCES calls(outbound_id) ON DELETE CASCADE,
                report TEXT NOT NULL,
                estimated_cost \(d.realType) NOT NULL,
                currency TEXT NOT NULL,
                turns \(d.integerType) NOT NULL,
                barge_ins \(d.integerType) NOT NULL,
                first_audio_ms_total \(d.integerType) NOT NULL,
                created_at \(d.dateType) NOT NULL)
            """,
        ] },

        // v5: the outcome of a call's latest attempt, which a retry's `queued` state would hide.
        SQLMigration("v5-last-outcome") { _ in [
            "ALTER TABLE calls ADD COLUMN last_outcome TEXT",
            "UPDATE calls SET last_outcome = state WHERE state IN ('completed', 'no_answer', 'busy', 'rejected', 'failed', 'cancelled')",
        ] },

        // v6: the do-not-call list (seed 000 §11), numbers normalized as calls store them.
        SQLMigration("v6-do-not-call") { d in [
            """
            CREATE TABLE do_not_call (
                number TEXT NOT NULL PRIMARY KEY,
                reason TEXT NOT NULL DEFAULT '',
                added_by TEXT NOT NULL DEFAULT 'operator',
                added_at \(d.dateType) NOT NULL)
            """,
        ] },

        // v7: call templates, every version kept; each call names the template version it ran
        // with and keeps what it said first and last.
        SQLMigration("v7-templates") { d in [
            """
            CREATE TABLE templates (
                id TEXT NOT NULL PRIMARY KEY,
                name TEXT NOT NULL,
                version \(d.integerType) NOT NULL,
                updated_at \(d.dateType) NOT NULL,
                deleted_at \(d.dateType))
            """,
            "CREATE UNIQUE INDEX templates_live_name ON templates(name) WHERE deleted_at IS NULL",
            """
            CREATE TABLE template_versions (
                template_id TEXT NOT NULL REFERENCES templates(id) ON DELETE CASCADE,
                version \(d.integerType) NOT NULL,
                body TEXT NOT NULL,
                created_at \(d.dateType) NOT NULL,
                PRIMARY KEY (template_id, version))
            """,
            "ALTER TABLE calls ADD COLUMN template_id TEXT",
            "ALTER TABLE calls ADD COLUMN template_version \(d.integerType)",
            "ALTER TABLE calls ADD COLUMN greeting TEXT",
            "ALTER TABLE calls ADD COLUMN closing TEXT",
            "ALTER TABLE calls ADD COLUMN voice TEXT",
        ] },
    ] + CallStore.laterMigrations)
}
