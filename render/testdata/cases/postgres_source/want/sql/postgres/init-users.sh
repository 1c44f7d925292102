#!/bin/sh
# Rendered by labgen from the lab "postgres_source". Do not edit: change the lab and render again.
# Creates the lab's users with the names and passwords compose passes in
# from .env. The postgres image runs it once, on an empty data volume.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
	-v app_user="$POSTGRES_APP_USER" -v app_password="$POSTGRES_APP_PASSWORD" \
	-v cdc_user="$POSTGRES_CDC_USER" -v cdc_password="$POSTGRES_CDC_PASSWORD" \
	-v reader_user="$POSTGRES_READER_USER" -v reader_password="$POSTGRES_READER_PASSWORD" \
	-f /lab/sql/postgres/users.sql
