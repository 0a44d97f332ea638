/** The flag that gives each field of a contact's body (upsert and update), for messages. */
export const contactFieldFlags: Readonly<Record<string, string>> = {
  first_name: "--first-name",
  last_name: "--last-name",
  email: "--email",
  tags: "--tag",
  custom_fields: "--field",
  opt_in_status: "--opt-in",
  opt_in_source: "--opt-in-source",
  opted_in_at: "--opted-in-at",
};
