// Stylesheets are bundled by Vite; importing one has no value to type.
declare module '*.css';
