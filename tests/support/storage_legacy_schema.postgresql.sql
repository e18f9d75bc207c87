-- The store's schema as assay made it before Alembic, on PostgreSQL 15: what init_db executed at
-- commit f6deb2e (metadata.create_all, captured statement by statement), then its _record_version
-- row. A frozen dump for tests/test_storage_migrations.py: never edit it.

CREATE TABLE schema_info (
	id SERIAL NOT NULL, 
	version INTEGER NOT NULL, 
	created_at TIMESTAMP WITH TIME ZONE DEFAULT now(), 
	assay_version VARCHAR(32), 
	PRIMARY KEY (id)
);

CREATE TABLE verdict_stores (
	name VARCHAR(200) NOT NULL, 
	spec JSON NOT NULL, 
	revision INTEGER NOT NULL, 
	n INTEGER NOT NULL, 
	created_at TIMESTAMP WITH TIME ZONE DEFAULT now(), 
	PRIMARY KEY (name)
);

CREATE TABLE llm_cache (
	key VARCHAR(64) NOT NULL, 
	backend VARCHAR(64) NOT NULL, 
	model VARCHAR(255) NOT NULL, 
	schema VARCHAR(255) NOT NULL, 
	response TEXT NOT NULL, 
	created_at TIMESTAMP WITH TIME ZONE DEFAULT now(), 
	PRIMARY KEY (key)
);

CREATE TABLE memo_cache (
	key VARCHAR(512) NOT NULL, 
	fingerprint VARCHAR(64) NOT NULL, 
	gate_version VARCHAR(64) NOT NULL, 
	gate_mode VARCHAR(16) NOT NULL, 
	synthesis_version TEXT NOT NULL, 
	memo TEXT NOT NULL, 
	size_bytes INTEGER NOT NULL, 
	created_at FLOAT NOT NULL, 
	expires_at FLOAT NOT NULL, 
	hits INTEGER NOT NULL, 
	last_hit_at FLOAT, 
	PRIMARY KEY (key)
);

CREATE INDEX ix_memo_cache_expires_at ON memo_cache (expires_at);

CREATE TABLE memo_cache_counts (
	status VARCHAR(32) NOT NULL, 
	n INTEGER NOT NULL, 
	updated_at FLOAT NOT NULL, 
	PRIMARY KEY (status)
);

CREATE TABLE memory_state (
	name VARCHAR(64) NOT NULL, 
	revision INTEGER NOT NULL, 
	PRIMARY KEY (name)
);

CREATE TABLE memories (
	seq SERIAL NOT NULL, 
	id VARCHAR(200) NOT NULL, 
	text TEXT NOT NULL, 
	dedupe_key VARCHAR(64) NOT NULL, 
	keywords JSON NOT NULL, 
	keywords_source VARCHAR(16) NOT NULL, 
	scope VARCHAR(200) NOT NULL, 
	layer VARCHAR(64), 
	confidence FLOAT NOT NULL, 
	confidence_prior FLOAT NOT NULL, 
	n_corroborations INTEGER NOT NULL, 
	n_contradictions INTEGER NOT NULL, 
	created_at TIMESTAMP WITH TIME ZONE, 
	source_ref VARCHAR(200), 
	superseded_by VARCHAR(200), 
	is_correction BOOLEAN NOT NULL, 
	meta JSON, 
	embedding REAL[], 
	embedding_model VARCHAR(200), 
	revision INTEGER NOT NULL, 
	added_at TIMESTAMP WITH TIME ZONE DEFAULT now(), 
	PRIMARY KEY (seq), 
	CONSTRAINT uq_memories_scope_text UNIQUE (scope, dedupe_key), 
	UNIQUE (id)
);

CREATE INDEX ix_memories_revision ON memories (revision);

CREATE TABLE memory_deliveries (
	id VARCHAR(32) NOT NULL, 
	search_id VARCHAR(32) NOT NULL, 
	memory_id VARCHAR(200) NOT NULL, 
	query TEXT NOT NULL, 
	rank INTEGER NOT NULL, 
	score FLOAT NOT NULL, 
	score_components JSON NOT NULL, 
	reranker_model VARCHAR(200), 
	layer VARCHAR(64), 
	scope VARCHAR(200), 
	search_scope VARCHAR(200), 
	source_ref VARCHAR(200), 
	session_id VARCHAR(200), 
	arm VARCHAR(64) NOT NULL, 
	version VARCHAR(64) NOT NULL, 
	created_at TIMESTAMP WITH TIME ZONE NOT NULL, 
	grade INTEGER, 
	hard_negative BOOLEAN, 
	graded_at TIMESTAMP WITH TIME ZONE, 
	engaged BOOLEAN, 
	engaged_score FLOAT, 
	engaged_method VARCHAR(32), 
	engagement_procedure VARCHAR(64), 
	lexical_score FLOAT, 
	engaged_model VARCHAR(200), 
	engaged_at TIMESTAMP WITH TIME ZONE, 
	PRIMARY KEY (id)
);

CREATE INDEX ix_memory_deliveries_search ON memory_deliveries (search_id, memory_id);

CREATE INDEX ix_memory_deliveries_memory ON memory_deliveries (memory_id);

CREATE TABLE memory_responses (
	search_id VARCHAR(32) NOT NULL, 
	prompt TEXT, 
	response TEXT NOT NULL, 
	recorded_at TIMESTAMP WITH TIME ZONE NOT NULL, 
	PRIMARY KEY (search_id)
);

CREATE TABLE verdicts (
	seq SERIAL NOT NULL, 
	store VARCHAR(200) NOT NULL, 
	id VARCHAR(512) NOT NULL, 
	fields JSON NOT NULL, 
	decision TEXT NOT NULL, 
	rationale TEXT NOT NULL, 
	description TEXT NOT NULL, 
	created_at TIMESTAMP WITH TIME ZONE, 
	source TEXT, 
	embedding BYTEA, 
	embedding_model VARCHAR(200), 
	added_at TIMESTAMP WITH TIME ZONE DEFAULT now(), 
	PRIMARY KEY (seq), 
	CONSTRAINT uq_verdicts_store_id UNIQUE (store, id), 
	FOREIGN KEY(store) REFERENCES verdict_stores (name)
);

CREATE INDEX ix_verdicts_store_seq ON verdicts (store, seq);

INSERT INTO schema_info (version, assay_version) VALUES (1, '0.1.0');
