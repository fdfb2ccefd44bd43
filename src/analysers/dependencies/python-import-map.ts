// Import name → distribution name for the Python modules whose distribution is named differently.
// Source: bndr/pipreqs, file `pipreqs/mapping` at commit 48dbafd39003b9de177b8d314795e45797555850 (Apache-2.0),
// as tabulated with line numbers in shared/research/readiness.md §5. Rows that file marks stale or ambiguous
// (`google`, `tkinter`, `MySQLdb`, `msgpack`, …) are left out on purpose; case-only rows (`requests:Requests`)
// are unnecessary because names are compared after PEP 503 normalisation. An import that is not here is assumed to
// be its own distribution name (pipreqs does the same), and the summary says which rule matched.

export const PYTHON_IMPORT_MAP_SOURCE = 'bndr/pipreqs pipreqs/mapping @ 48dbafd39003b9de177b8d314795e45797555850'

export const PYTHON_IMPORT_MAP: ReadonlyMap<string, string> = new Map([
  ['yaml', 'PyYAML'],
  ['cv2', 'opencv-python'],
  ['PIL', 'Pillow'],
  ['sklearn', 'scikit_learn'],
  ['bs4', 'beautifulsoup4'],
  ['dateutil', 'python_dateutil'],
  ['jwt', 'PyJWT'],
  ['dotenv', 'python-dotenv'],
  ['Crypto', 'pycryptodome'],
  ['Cryptodome', 'pycryptodomex'],
  ['OpenSSL', 'pyOpenSSL'],
  ['serial', 'pyserial'],
  ['usb', 'pyusb'],
  ['git', 'GitPython'],
  ['github', 'PyGithub'],
  ['zmq', 'pyzmq'],
  ['magic', 'python_magic'],
  ['Levenshtein', 'python_Levenshtein'],
  ['telegram', 'python-telegram-bot'],
  ['discord', 'discord.py'],
  ['dns', 'dnspython'],
  ['jose', 'python_jose'],
  ['ldap', 'python_ldap'],
  ['markdown', 'Markdown'],
  ['socketio', 'python-socketio'],
  ['engineio', 'python_engineio'],
  ['websocket', 'websocket_client'],
  ['paho', 'paho_mqtt'],
  ['OpenGL', 'PyOpenGL'],
  ['speech_recognition', 'SpeechRecognition'],
  ['googleapiclient', 'google_api_python_client'],
  ['apiclient', 'google_api_python_client'],
  ['rest_framework', 'djangorestframework'],
  ['jinja2', 'Jinja2'],
  ['markupsafe', 'MarkupSafe'],
  ['werkzeug', 'Werkzeug'],
  ['sqlalchemy', 'SQLAlchemy'],
  ['pygments', 'Pygments'],
  ['babel', 'Babel'],
  ['xdist', 'pytest_xdist'],
  ['memcache', 'python_memcached'],
  ['pyximport', 'Cython'],
  ['past', 'future'],
  ['gflags', 'python_gflags'],
  ['bson', 'pymongo'],
  ['gridfs', 'pymongo'],
  ['IPython', 'ipython'],
  ['decouple', 'python-decouple'],
  ['xdg', 'pyxdg'],
  ['pywintypes', 'pywin32'],
  ['pydispatch', 'PyDispatcher'],
  ['cassandra', 'cassandra_driver'],
  ['curl', 'pycurl'],
  ['haystack', 'django_haystack'],
  ['unidecode', 'Unidecode'],
  ['igraph', 'python_igraph'],
  ['ephem', 'pyephem'],
  ['wtforms', 'WTForms'],
  ['twitter', 'python_twitter'],
  ['slugify', 'python-slugify'],
])

/** PEP 503 normalised project name: lower case, runs of `-`, `_`, `.` folded to one `-`. */
export const normalizeDistribution = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '-')

/** The distribution that provides an import name, and which rule said so. */
export function distributionOf(module: string): { distribution: string; rule: 'pipreqs-mapping' | 'same-name' } {
  const mapped = PYTHON_IMPORT_MAP.get(module)
  return mapped ? { distribution: mapped, rule: 'pipreqs-mapping' } : { distribution: module, rule: 'same-name' }
}
