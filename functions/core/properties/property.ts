/** The Analytics Admin v1alpha Property resource (public JSON form: lowerCamelCase, enum names, RFC 3339 UTC). */
export const PROPERTY_TYPES = [
  'PROPERTY_TYPE_UNSPECIFIED',
  'PROPERTY_TYPE_ORDINARY',
  'PROPERTY_TYPE_SUBPROPERTY',
  'PROPERTY_TYPE_ROLLUP',
] as const;
export const SERVICE_LEVELS = [
  'SERVICE_LEVEL_UNSPECIFIED',
  'GOOGLE_ANALYTICS_STANDARD',
  'GOOGLE_ANALYTICS_360',
] as const;
export const INDUSTRY_CATEGORIES = [
  'INDUSTRY_CATEGORY_UNSPECIFIED',
  'AUTOMOTIVE',
  'BUSINESS_AND_INDUSTRIAL_MARKETS',
  'FINANCE',
  'HEALTHCARE',
  'TECHNOLOGY',
  'TRAVEL',
  'OTHER',
  'ARTS_AND_ENTERTAINMENT',
  'BEAUTY_AND_FITNESS',
  'BOOKS_AND_LITERATURE',
  'FOOD_AND_DRINK',
  'GAMES',
  'HOBBIES_AND_LEISURE',
  'HOME_AND_GARDEN',
  'INTERNET_AND_TELECOM',
  'LAW_AND_GOVERNMENT',
  'NEWS',
  'ONLINE_COMMUNITIES',
  'PEOPLE_AND_SOCIETY',
  'PETS_AND_ANIMALS',
  'REAL_ESTATE',
  'REFERENCE',
  'SCIENCE',
  'SPORTS',
  'JOBS_AND_EDUCATION',
  'SHOPPING',
] as const;

export interface Property {
  /** `properties/<id>` */
  name: string;
  propertyType: (typeof PROPERTY_TYPES)[number];
  createTime: string;
  updateTime: string;
  /** `accounts/<id>`, or `properties/<id>` for a subproperty. */
  parent: string;
  displayName: string;
  industryCategory: (typeof INDUSTRY_CATEGORIES)[number];
  timeZone: string;
  currencyCode: string;
  serviceLevel: (typeof SERVICE_LEVELS)[number];
  /** Set only while the property is in the trash. */
  deleteTime?: string;
  expireTime?: string;
  /** `accounts/<id>` */
  account: string;
}

/** Property ids are decimal numbers (the name is `properties/<id>`). */
export const PROPERTY_ID = /^[0-9]{1,20}$/;

/** The resource names whose read grant lets a user read this property. */
export const grantsThatCover = (p: Property): string[] => {
  const names = [p.name, p.account];
  if (p.parent.startsWith('properties/')) names.push(p.parent);
  return names;
};
