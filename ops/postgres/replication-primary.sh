#!/bin/sh
# Run by the postgres image when it initialises an empty data directory (docker-entrypoint-initdb.d): the role
# docker-compose.yml's postgres-replica streams as, and the pg_hba.conf line that lets it connect for replication from
# another container (the image's own lines let every database in by password, but not replication). A data volume made
# before this file was mounted: run it once by hand, `docker compose exec postgres sh /docker-entrypoint-initdb.d/replication-primary.sh`.
set -e
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v password="$REPLICATION_PASSWORD" <<'SQL'
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';
SQL
echo 'host replication replicator all scram-sha-256' >> "$PGDATA/pg_hba.conf"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -c 'SELECT pg_reload_conf()' > /dev/null
