#!/usr/bin/env bash
# A backup of a PostgreSQL installation with PostgreSQL's own tool, for operators who run
# pg_dump from cron rather than `herdbook backup` (which runs the same pg_dump and also copies
# local files and writes a manifest). One snapshot transaction: consistent while the
# servers write.
#
#   HERDBOOK_DATABASE_URL=postgres://… scripts/backup-postgres.sh /backups/herdbook-$(date +%F).pgdump
#
# Restore into an empty database:
#   pg_restore --no-owner --no-privileges --exit-on-error --single-transaction --dbname=postgres://… FILE
set -euo pipefail
out=${1:?usage: backup-postgres.sh OUTPUT_FILE}
url=${HERDBOOK_DATABASE_URL:?set HERDBOOK_DATABASE_URL to the postgres:// URL}
case "$url" in postgres://*|postgresql://*) ;; *) echo "HERDBOOK_DATABASE_URL is not a PostgreSQL URL" >&2; exit 2 ;; esac
pg_dump --format=custom --no-owner --no-privileges --file="$out" --dbname="$url"
echo "wrote $out ($(stat -c %s "$out") bytes)"
